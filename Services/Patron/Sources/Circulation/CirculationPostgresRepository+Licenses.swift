import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// Catalog's licences as patron keeps them: each change offers the book to its hold queue at once.
extension CirculationPostgresRepository {
    /// Stores books' licences from catalog, each unless a newer version is stored; a changed licence offers the book
    /// to the hold queue at once (more copies, or open access) and marks its figures due. One transaction for all,
    /// taking the books in id order, so that two batches lock their common books in one order.
    func store(_ licenses: [License], logger: Logger) async throws {
        let newest = Dictionary(licenses.map { ($0.bookId, $0) }) { $0.version >= $1.version ? $0 : $1 }
        let sorted = newest.values.sorted { $0.bookId < $1.bookId }
        guard !sorted.isEmpty else { return }
        try await client.transaction(logger: logger) { connection in
            for license in sorted { try await store(license, on: connection, logger: logger) }
        }
    }

    func store(_ license: License, on connection: PostgresConnection, logger: Logger) async throws {
        let authors = String(decoding: try WireFormat.encode(license.authors), as: UTF8.self)
        let rows = try await connection.query(
            """
            INSERT INTO licenses AS l (book_id, copies, open_access, withdrawn, title, authors, version, has_cover, koreader_digest, audience)
            VALUES (\(license.bookId), \(license.copies), \(license.openAccess), \(license.withdrawn), \(license.title), \(authors)::jsonb,
                \(license.version), \(license.hasCover), \(license.koreaderDigest), \(license.audience?.rawValue))
            ON CONFLICT (book_id) DO UPDATE SET copies = EXCLUDED.copies, open_access = EXCLUDED.open_access,
                withdrawn = EXCLUDED.withdrawn, title = EXCLUDED.title, authors = EXCLUDED.authors, version = EXCLUDED.version,
                has_cover = EXCLUDED.has_cover, koreader_digest = coalesce(EXCLUDED.koreader_digest, l.koreader_digest),
                audience = EXCLUDED.audience
            WHERE l.version < EXCLUDED.version
            RETURNING 1
            """,
            logger: logger
        )
        var changed = false
        for try await _ in rows { changed = true }
        guard changed else { return }
        try await promoteHolds(bookID: license.bookId, copies: license.copies, openAccess: license.openAccess, on: connection, logger: logger)
        try await FiguresPostgresRepository.markDue(bookID: license.bookId, on: connection, logger: logger)
    }

    /// The book whose EPUB KOReader names `digest` (its partial MD5, from catalog's licence).
    func book(koreaderDigest digest: String, logger: Logger) async throws -> UUID? {
        let rows = try await client.query(
            "SELECT book_id FROM licenses WHERE koreader_digest = \(digest) ORDER BY book_id LIMIT 1",
            logger: logger
        )
        for try await id in rows.decode(UUID.self) { return id }
        return nil
    }
}
