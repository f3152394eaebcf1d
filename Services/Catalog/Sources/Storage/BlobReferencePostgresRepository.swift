import Foundation
import Logging
import PostgresNIO

/// Which blobs the catalog's rows use, and the advisory locks that keep the orphan sweep and ingest apart: an ingest
/// holds a shared lock on each blob it writes until its row is committed; the sweep deletes a blob only under the
/// exclusive lock, after seeing that no row uses it. So a blob is never deleted between its write and its row.
struct BlobReferencePostgresRepository: Sendable {
    let client: PostgresClient

    /// The advisory-lock space of blob hashes ("blob").
    static let lockSpace: Int32 = 0x626C_6F62

    /// Takes the shared lock of each hash for the rest of the caller's transaction.
    static func lockShared(_ hashes: [String], on connection: PostgresConnection, logger: Logger) async throws {
        guard !hashes.isEmpty else { return }
        try await connection.query(
            "SELECT pg_advisory_xact_lock_shared(\(lockSpace), hashtext(h)) FROM unnest(\(hashes)::text[]) AS h ORDER BY hashtext(h)",
            logger: logger
        )
    }

    /// The hashes among `hashes` that no book uses (as its file, cover or thumbnail) and no kept MARC export is.
    func unreferenced(_ hashes: [String], logger: Logger) async throws -> [String] {
        let rows = try await client.query(
            """
            SELECT h FROM unnest(\(hashes)::text[]) AS h
            WHERE NOT EXISTS (SELECT 1 FROM books WHERE epub_sha256 = h)
              AND NOT EXISTS (SELECT 1 FROM books WHERE cover_sha256 = h)
              AND NOT EXISTS (SELECT 1 FROM books WHERE thumbnail_sha256 = h)
              AND NOT EXISTS (SELECT 1 FROM marc_exports WHERE blob_sha256 = h)
            """,
            logger: logger
        )
        var result: [String] = []
        for try await hash in rows.decode(String.self) { result.append(hash) }
        return result
    }

    /// Runs `remove` when the blob is still unused, under its exclusive lock; skips a blob an ingest holds, and every
    /// blob while a backup runs.
    func removeIfUnreferenced(_ hash: String, logger: Logger, remove: @Sendable () async throws -> Void) async throws -> Bool {
        try await client.transaction(logger: logger) { connection in
            let locked = try await connection.query("SELECT pg_try_advisory_xact_lock(\(Self.lockSpace), hashtext(\(hash)))", logger: logger)
            var acquired = false
            for try await value in locked.decode(Bool.self) { acquired = value }
            guard acquired else { return false }
            // A backup copying blobs holds its lock exclusively: nothing is deleted until it is done.
            let backup = try await connection.query(
                "SELECT pg_try_advisory_xact_lock_shared(\(BackupPostgresRepository.lockSpace), 0)",
                logger: logger
            )
            for try await free in backup.decode(Bool.self) where !free { return false }
            let used = try await connection.query(
                """
                SELECT 1 FROM books WHERE epub_sha256 = \(hash) OR cover_sha256 = \(hash) OR thumbnail_sha256 = \(hash)
                UNION ALL SELECT 1 FROM marc_exports WHERE blob_sha256 = \(hash) LIMIT 1
                """,
                logger: logger
            )
            for try await _ in used { return false }
            try await remove()
            return true
        }
    }
}
