import Foundation
import Logging
import PostgresNIO

/// What catalog asks PostgreSQL about replication: the primary's position, a replica's replay position, and the
/// announcements of writes (`catalog_writes`), which every catalog replica hears from the primary.
struct ReplicationPostgresRepository: Sendable {
    static let channel = "catalog_writes"

    /// The primary's current position; announced to every catalog replica when `announce` is set. The insert position,
    /// not the write position (`pg_current_wal_lsn`): with `synchronous_commit` off a commit returns before its record is
    /// written, so the write position can be short of a write just answered, and a replica that had replayed that far
    /// was read without it (seen in tests, which run so). A replica is behind the
    /// insert position until the log is written and sent, at most `wal_writer_delay` later; meanwhile the primary
    /// answers.
    func primaryPosition(_ client: PostgresClient, announce: Bool, logger: Logger) async throws -> WALPosition? {
        let rows =
            announce
            ? try await client.query(
                "SELECT position::text FROM pg_current_wal_insert_lsn() AS position, pg_notify(\(Self.channel), position::text)",
                logger: logger
            )
            : try await client.query("SELECT pg_current_wal_insert_lsn()::text", logger: logger)
        for try await text in rows.decode(String.self) { return WALPosition(text) }
        return nil
    }

    /// How far a streaming replica has replayed the primary's log; nil when the server is not a replica.
    func replayPosition(_ client: PostgresClient, logger: Logger) async throws -> WALPosition? {
        let rows = try await client.query("SELECT pg_last_wal_replay_lsn()::text", logger: logger)
        for try await text in rows.decode(String?.self) { return text.flatMap(WALPosition.init) }
        return nil
    }
}
