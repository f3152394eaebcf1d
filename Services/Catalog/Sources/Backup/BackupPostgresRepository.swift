import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// What a backup reads of the catalog database, on the one connection that holds its snapshot.
struct BackupPostgresRepository {
    let connection: PostgresConnection
    let logger: Logger

    /// The advisory lock a backup holds while it copies blobs: the orphan sweep deletes none meanwhile
    /// (`BlobReferencePostgresRepository.removeIfUnreferenced`), so every blob the snapshot names is still there.
    static let lockSpace: Int32 = 0x6261_636B

    /// Begins the snapshot's transaction and exports the snapshot for `pg_dump`; takes the backup lock first.
    func beginSnapshot() async throws -> String {
        try await connection.query("SELECT pg_advisory_lock(\(Self.lockSpace), 0)", logger: logger)
        try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
        for try await snapshot in try await connection.query("SELECT pg_export_snapshot()", logger: logger).decode(String.self) {
            return snapshot
        }
        throw DatabaseDump.Failed(description: "no snapshot exported")
    }

    /// Every blob the snapshot's books name (files, covers, thumbnails) and how many books there are.
    func namedBlobs() async throws -> (hashes: [String], books: Int) {
        var hashes: [String] = []
        let rows = try await connection.query(
            """
            SELECT h FROM (SELECT epub_sha256 FROM books UNION SELECT cover_sha256 FROM books UNION SELECT thumbnail_sha256 FROM books) AS b(h)
            WHERE h IS NOT NULL ORDER BY h
            """,
            logger: logger
        )
        for try await hash in rows.decode(String.self) { hashes.append(hash) }
        var books = 0
        for try await count in try await connection.query("SELECT count(*)::int FROM books", logger: logger).decode(Int.self) { books = count }
        return (hashes, books)
    }

    func endSnapshot() async throws {
        try await connection.query("COMMIT", logger: logger)
    }

    func releaseLock() async throws {
        try await connection.query("SELECT pg_advisory_unlock(\(Self.lockSpace), 0)", logger: logger)
    }
}
