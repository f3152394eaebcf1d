import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

extension FeedbackPostgresRepository {
    /// The patron's own feedback, oldest first (for the export).
    func feedback(patronID: UUID, logger: Logger) async throws -> [[String: String]] {
        var result: [[String: String]] = []
        for try await (message, kind, created) in try await client.query(
            "SELECT message, kind, created_at FROM feedback WHERE patron_id = \(patronID) ORDER BY created_at",
            logger: logger
        ).decode((String, String, Date).self) {
            result.append(["message": message, "kind": kind, "createdAt": WireFormat.formatDate(created)])
        }
        return result
    }
}
