import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// The patron's reading data in PostgreSQL: bookmarks, reading positions, ratings, favourites, and what the
/// export reads besides.
struct ReadingPostgresRepository: Sendable {
    let client: PostgresClient

    // MARK: bookmarks

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

    /// How many bookmarks and positions the patron keeps, of one book or of all.
    func counts(patronID: UUID, bookID: UUID?, logger: Logger) async throws -> (bookmarks: Int, positions: Int) {
        let rows = try await client.query(
            """
            SELECT (SELECT count(*)::int FROM bookmarks WHERE patron_id = \(patronID) AND (\(bookID)::uuid IS NULL OR book_id = \(bookID))),
                   (SELECT count(*)::int FROM positions WHERE patron_id = \(patronID) AND (\(bookID)::uuid IS NULL OR book_id = \(bookID)))
            """,
            logger: logger
        )
        for try await counts in rows.decode((Int, Int).self) { return counts }
        return (0, 0)
    }

    // MARK: positions

    /// Keeps `position` unless a newer one exists (last writer by timestamp wins); false when a newer one is kept.
    func savePosition(_ position: ReadingPosition, patronID: UUID, bookID: UUID, logger: Logger) async throws -> Bool {
        let json = String(decoding: try WireFormat.encode(position.locator), as: UTF8.self)
        let rows = try await client.query(
            """
            INSERT INTO positions AS p (patron_id, book_id, locator, written_at, device)
            VALUES (\(patronID), \(bookID), \(json)::jsonb, \(position.timestamp), \(position.device))
            ON CONFLICT (patron_id, book_id) DO UPDATE SET locator = EXCLUDED.locator, written_at = EXCLUDED.written_at, device = EXCLUDED.device
            WHERE p.written_at <= EXCLUDED.written_at
            RETURNING 1
            """,
            logger: logger
        )
        for try await _ in rows { return true }
        return false
    }

    /// The patron's reading positions, of one book or of all, by book; `range` picks a page of them.
    func positions(
        patronID: UUID,
        bookID: UUID?,
        range: Range<Int> = 0..<Int(Int32.max),
        logger: Logger
    ) async throws -> [(bookID: UUID, position: ReadingPosition)] {
        let rows = try await client.query(
            """
            SELECT book_id, locator::text, written_at, device FROM positions
            WHERE patron_id = \(patronID) AND (\(bookID)::uuid IS NULL OR book_id = \(bookID)) ORDER BY book_id
            OFFSET \(range.lowerBound) LIMIT \(range.count)
            """,
            logger: logger
        )
        var result: [(UUID, ReadingPosition)] = []
        for try await (book, locator, written, device) in rows.decode((UUID, String, Date, String).self) {
            let locator = try WireFormat.decoder().decode(Locator.self, from: Data(locator.utf8))
            result.append((book, ReadingPosition(locator: locator, timestamp: written, device: device)))
        }
        return result
    }

    // MARK: ratings and favourites

    /// Sets the patron's stars for a book; the book's new average goes to catalog through the outbox.
    func rate(_ stars: Int, patronID: UUID, bookID: UUID, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            try await connection.query(
                """
                INSERT INTO ratings (patron_id, book_id, stars) VALUES (\(patronID), \(bookID), \(stars))
                ON CONFLICT (patron_id, book_id) DO UPDATE SET stars = EXCLUDED.stars, updated_at = now()
                """,
                logger: logger
            )
            try await FiguresPostgresRepository.publish(bookID: bookID, on: connection, logger: logger)
        }
    }

    func rating(patronID: UUID, bookID: UUID, logger: Logger) async throws -> Int? {
        let rows = try await client.query("SELECT stars FROM ratings WHERE patron_id = \(patronID) AND book_id = \(bookID)", logger: logger)
        for try await stars in rows.decode(Int.self) { return stars }
        return nil
    }

    func removeRating(patronID: UUID, bookID: UUID, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                "DELETE FROM ratings WHERE patron_id = \(patronID) AND book_id = \(bookID) RETURNING 1",
                logger: logger
            )
            for try await _ in rows { try await FiguresPostgresRepository.publish(bookID: bookID, on: connection, logger: logger) }
        }
    }

    func ratings(patronID: UUID, logger: Logger) async throws -> [(bookID: UUID, stars: Int)] {
        var result: [(UUID, Int)] = []
        for try await row in try await client.query(
            "SELECT book_id, stars FROM ratings WHERE patron_id = \(patronID) ORDER BY book_id",
            logger: logger
        )
        .decode((UUID, Int).self) {
            result.append(row)
        }
        return result
    }

    func setFavorite(_ on: Bool, patronID: UUID, bookID: UUID, logger: Logger) async throws {
        if on {
            try await client.query(
                "INSERT INTO favorites (patron_id, book_id) VALUES (\(patronID), \(bookID)) ON CONFLICT DO NOTHING",
                logger: logger
            )
        } else {
            try await client.query("DELETE FROM favorites WHERE patron_id = \(patronID) AND book_id = \(bookID)", logger: logger)
        }
    }

    // MARK: rules

    /// Bookmarks and positions are for books the patron has or had on loan, or open-access books.
    func isReadable(patronID: UUID, bookID: UUID, logger: Logger) async throws -> Bool {
        let rows = try await client.query(
            """
            SELECT EXISTS (SELECT 1 FROM loan_history WHERE patron_id = \(patronID) AND book_id = \(bookID))
                OR EXISTS (SELECT 1 FROM licenses WHERE book_id = \(bookID) AND open_access)
            """,
            logger: logger
        )
        for try await allowed in rows.decode(Bool.self) { return allowed }
        return false
    }

    func isKnownBook(_ bookID: UUID, logger: Logger) async throws -> Bool {
        for try await _ in try await client.query("SELECT 1 FROM licenses WHERE book_id = \(bookID)", logger: logger) { return true }
        return false
    }

    /// False when the patron turned bookmark synchronisation off in their reader settings.
    func syncsBookmarks(patronID: UUID, logger: Logger) async throws -> Bool {
        let rows = try await client.query(
            "SELECT coalesce((settings->>'syncBookmarks')::boolean, true) FROM settings WHERE patron_id = \(patronID)",
            logger: logger
        )
        for try await enabled in rows.decode(Bool.self) { return enabled }
        return true
    }

    // MARK: what the export reads besides

    struct HistoryEntry: Encodable {
        var bookId: UUID
        var loanedAt: Date
        var endedAt: Date?
        var endReason: String?
    }

    /// One page of the patron's loan history, oldest first, after the entry numbered `after`.
    func loanHistory(patronID: UUID, after: Int64, limit: Int, logger: Logger) async throws -> [(number: Int64, entry: HistoryEntry)] {
        var result: [(Int64, HistoryEntry)] = []
        for try await (id, book, loaned, ended, reason) in try await client.query(
            """
            SELECT id, book_id, loaned_at, ended_at, end_reason FROM loan_history WHERE patron_id = \(patronID) AND id > \(after)
            ORDER BY id LIMIT \(limit)
            """,
            logger: logger
        ).decode((Int64, UUID, Date, Date?, String?).self) {
            result.append((id, HistoryEntry(bookId: book, loanedAt: loaned, endedAt: ended, endReason: reason)))
        }
        return result
    }

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

    func readerSettings(patronID: UUID, logger: Logger) async throws -> ReaderSettings? {
        for try await text in try await client.query("SELECT settings::text FROM settings WHERE patron_id = \(patronID)", logger: logger)
            .decode(String.self)
        {
            return try WireFormat.decoder().decode(ReaderSettings.self, from: Data(text.utf8))
        }
        return nil
    }
}
