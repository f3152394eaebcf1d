import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// A patron's bookmarks in PostgreSQL.
struct BookmarkPostgresRepository: Sendable {
    let client: PostgresClient

    /// Keeps a bookmark once per place (`key`): the existing one for a place bookmarked before, else a new one,
    /// unless the patron already has `limit` bookmarks (counted under the patron's row lock, so parallel
    /// bookmarks cannot pass it). Returns the bookmark's id and whether it is new.
    func saveBookmark(
        _ locator: Locator,
        key: String,
        chapter: String?,
        snippet: String?,
        device: String?,
        patronID: UUID,
        bookID: UUID,
        limit: Int,
        logger: Logger
    ) async throws -> (id: UUID, created: Bool) {
        let json = String(decoding: try WireFormat.encode(locator), as: UTF8.self)
        return try await client.transaction(logger: logger) { connection in
            try await IdempotencyClaim.make(on: connection, logger: logger)
            try await connection.query("SELECT 1 FROM patrons WHERE id = \(patronID) FOR UPDATE", logger: logger)
            for try await id in try await connection.query(
                "SELECT id FROM bookmarks WHERE patron_id = \(patronID) AND book_id = \(bookID) AND locator_key = \(key)",
                logger: logger
            ).decode(UUID.self) {
                return (id, false)
            }
            for try await count in try await connection.query("SELECT count(*)::int FROM bookmarks WHERE patron_id = \(patronID)", logger: logger)
                .decode(Int.self) where count >= limit
            {
                throw ReadingError.bookmarkLimit(limit)
            }
            let id = UUID()
            try await connection.query(
                """
                INSERT INTO bookmarks (id, patron_id, book_id, locator, locator_key, chapter, snippet, device)
                VALUES (\(id), \(patronID), \(bookID), \(json)::jsonb, \(key), \(chapter), \(snippet), \(device))
                """,
                logger: logger
            )
            return (id, true)
        }
    }

    /// Deletes one of the patron's bookmarks; false for an unknown id or another patron's.
    func removeBookmark(_ id: UUID, patronID: UUID, logger: Logger) async throws -> Bool {
        let rows = try await client.query("DELETE FROM bookmarks WHERE id = \(id) AND patron_id = \(patronID) RETURNING id", logger: logger)
        for try await _ in rows { return true }
        return false
    }

    /// The patron's bookmarks, of one book or of all (or the one with `id`), oldest first; `range` picks a page.
    func bookmarks(
        patronID: UUID,
        bookID: UUID?,
        id: UUID? = nil,
        range: Range<Int> = 0..<Int(Int32.max),
        logger: Logger
    ) async throws -> [Bookmark] {
        let rows = try await client.query(
            """
            SELECT id, book_id, locator::text, chapter, snippet, device, created_at FROM bookmarks
            WHERE patron_id = \(patronID) AND (\(bookID)::uuid IS NULL OR book_id = \(bookID)) AND (\(id)::uuid IS NULL OR id = \(id))
            ORDER BY created_at, id OFFSET \(range.lowerBound) LIMIT \(range.count)
            """,
            logger: logger
        )
        var result: [Bookmark] = []
        for try await (id, book, locator, chapter, snippet, device, created) in rows.decode(
            (UUID, UUID, String, String?, String?, String?, Date).self
        ) {
            result.append(
                Bookmark(
                    id: id,
                    bookId: book,
                    locator: try WireFormat.decoder().decode(Locator.self, from: Data(locator.utf8)),
                    chapter: chapter,
                    snippet: snippet,
                    device: device,
                    createdAt: created
                )
            )
        }
        return result
    }
}
