import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// The reader settings as reading data and the export need them.
extension ProfilePostgresRepository {
    /// False when the patron turned bookmark synchronisation off in their reader settings.
    func syncsBookmarks(patronID: UUID, logger: Logger) async throws -> Bool {
        let rows = try await client.query(
            "SELECT coalesce((settings->>'syncBookmarks')::boolean, true) FROM settings WHERE patron_id = \(patronID)",
            logger: logger
        )
        for try await enabled in rows.decode(Bool.self) { return enabled }
        return true
    }

    /// The stored reader settings as saved, nil when the patron never saved any (for the export).
    func savedSettings(patronID: UUID, logger: Logger) async throws -> ReaderSettings? {
        for try await text in try await client.query("SELECT settings::text FROM settings WHERE patron_id = \(patronID)", logger: logger)
            .decode(String.self)
        {
            return try WireFormat.decoder().decode(ReaderSettings.self, from: Data(text.utf8))
        }
        return nil
    }
}
