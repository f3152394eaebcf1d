import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

extension FeedbackPostgresRepository {
    /// The patron's own feedback, oldest first (for the export), handed to `each` as the rows come.
    func feedback(patronID: UUID, logger: Logger, _ each: ([String: String]) async throws -> Void) async throws {
        for try await (message, kind, created) in try await client.query(
            "SELECT message, kind, created_at FROM feedback WHERE patron_id = \(patronID) ORDER BY created_at",
            logger: logger
        ).decode((String, String, Date).self) {
            try await each(["message": message, "kind": kind, "createdAt": WireFormat.formatDate(created)])
        }
    }
}
