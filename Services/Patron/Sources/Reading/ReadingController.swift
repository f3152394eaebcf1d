import Foundation
import Hummingbird
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// `/me/books/{id}/bookmarks`, `/me/bookmarks/{id}`, `/me/books/{id}/position`, `/me/books/{id}/rating`,
/// `/me/favorites/{id}` and `/me/export`.
struct ReadingController: Sendable {
    let client: PostgresClient
    let guardian: PatronGuard
    let readingOrder: ReadingOrderCache

    init(client: PostgresClient, guardian: PatronGuard, catalog: InternalClient) {
        self.client = client
        self.guardian = guardian
        self.readingOrder = ReadingOrderCache(catalog: catalog)
    }

    func add(to router: Router<BasicRequestContext>) {
        router.get("/me/books/:id/bookmarks", use: listBookmarks)
        router.post("/me/books/:id/bookmarks", use: addBookmark)
        router.delete("/me/bookmarks/:id", use: deleteBookmark)
        router.get("/me/books/:id/position", use: getPosition)
        router.put("/me/books/:id/position", use: putPosition)
        router.put("/me/books/:id/rating", use: putRating)
        router.delete("/me/books/:id/rating", use: deleteRating)
        router.get("/me/books/:id/rating", use: getRating)
        router.put("/me/favorites/:id") { request, context in try await favorite(true, request: request, context: context) }
        router.delete("/me/favorites/:id") { request, context in try await favorite(false, request: request, context: context) }
        router.get("/me/export", use: export)
    }

    // MARK: bookmarks

    func listBookmarks(request: Request, context: BasicRequestContext) async throws -> Response {
        let patronID = try await guardian.require(request, logger: context.logger)
        let bookID = try context.uuid("id")
        return try JSONMessages.response(["bookmarks": try await bookmarks(patronID: patronID, bookID: bookID, logger: context.logger)])
    }

    /// `POST /me/books/{id}/bookmarks` → 201 with the bookmark, 200 with the existing one for the same place.
    func addBookmark(request: Request, context: BasicRequestContext) async throws -> Response {
        let patronID = try await guardian.require(request, logger: context.logger)
        let bookID = try context.uuid("id")
        let body = try await JSONMessages.decode(BookmarkRequest.self, from: request)
        let (bookmark, created) = try await saveBookmark(body, patronID: patronID, bookID: bookID, logger: context.logger)
        return try JSONMessages.response(bookmark, status: created ? .created : .ok)
    }

    /// Validates and keeps a bookmark (once per place); also used by the annotations API.
    func saveBookmark(_ body: BookmarkRequest, patronID: UUID, bookID: UUID, logger: Logger) async throws -> (Bookmark, created: Bool) {
        let locator = try body.validatedLocator()
        try await requireReadable(patronID: patronID, bookID: bookID, logger: logger)
        try await requireSyncEnabled(patronID: patronID, logger: logger)
        try await checkHref(locator.href, bookID: bookID, logger: logger)
        let json = String(decoding: try WireFormat.encode(locator), as: UTF8.self)
        let rows = try await client.query(
            """
            WITH inserted AS (
                INSERT INTO bookmarks (id, patron_id, book_id, locator, locator_key, chapter, snippet, device)
                VALUES (\(UUID()), \(patronID), \(bookID), \(json)::jsonb, \(ReadingValidation.key(locator)), \(body.chapter), \(body.snippet), \(body.device))
                ON CONFLICT (patron_id, book_id, locator_key) DO NOTHING RETURNING id)
            SELECT id, true FROM inserted
            UNION ALL SELECT id, false FROM bookmarks WHERE patron_id = \(patronID) AND book_id = \(bookID) AND locator_key = \(ReadingValidation.key(locator))
            LIMIT 1
            """, logger: logger)
        var result: (UUID, Bool)?
        for try await row in rows.decode((UUID, Bool).self) { result = row }
        guard let (id, created) = result,
            let bookmark = try await bookmarks(patronID: patronID, bookID: bookID, logger: logger).first(where: { $0.id == id })
        else { throw Problem.conflict("bookmark-race", "The bookmark changed meanwhile; try again") }
        return (bookmark, created)
    }

    /// `DELETE /me/bookmarks/{id}` → 204; 404 for an unknown bookmark or another patron's.
    func deleteBookmark(request: Request, context: BasicRequestContext) async throws -> Response {
        let patronID = try await guardian.require(request, logger: context.logger)
        try await removeBookmark(try context.uuid("id"), patronID: patronID, logger: context.logger)
        return Response(status: .noContent)
    }

    /// Deletes one of the patron's bookmarks; 404 for an unknown id or another patron's.
    func removeBookmark(_ id: UUID, patronID: UUID, logger: Logger) async throws {
        let rows = try await client.query("DELETE FROM bookmarks WHERE id = \(id) AND patron_id = \(patronID) RETURNING id", logger: logger)
        for try await _ in rows { return }
        throw Problem.notFound("No bookmark \(id)")
    }

    func bookmarks(patronID: UUID, bookID: UUID?, logger: Logger) async throws -> [Bookmark] {
        let rows = try await client.query(
            """
            SELECT id, book_id, locator::text, chapter, snippet, device, created_at FROM bookmarks
            WHERE patron_id = \(patronID) AND (\(bookID)::uuid IS NULL OR book_id = \(bookID)) ORDER BY created_at, id
            """, logger: logger)
        var result: [Bookmark] = []
        for try await (id, book, locator, chapter, snippet, device, created) in rows.decode((UUID, UUID, String, String?, String?, String?, Date).self) {
            result.append(
                Bookmark(
                    id: id, bookId: book, locator: try WireFormat.decoder().decode(Locator.self, from: Data(locator.utf8)), chapter: chapter,
                    snippet: snippet, device: device, createdAt: created))
        }
        return result
    }

    // MARK: positions

    func getPosition(request: Request, context: BasicRequestContext) async throws -> Response {
        let patronID = try await guardian.require(request, logger: context.logger)
        let bookID = try context.uuid("id")
        guard let position = try await position(patronID: patronID, bookID: bookID, logger: context.logger) else {
            throw Problem.notFound("No reading position for this book yet")
        }
        return try JSONMessages.response(position)
    }

    /// `PUT /me/books/{id}/position` → 200 when this write is the newest; 409 with the newer position otherwise.
    func putPosition(request: Request, context: BasicRequestContext) async throws -> Response {
        let patronID = try await guardian.require(request, logger: context.logger)
        let bookID = try context.uuid("id")
        let body = try await JSONMessages.decode(ReadingPosition.self, from: request)
        if let newer = try await savePosition(body, patronID: patronID, bookID: bookID, logger: context.logger) {
            return try JSONMessages.response(newer, status: .conflict)
        }
        return try JSONMessages.response(body)
    }

    /// Keeps `position` unless a newer one exists, which is then returned (last writer by timestamp wins).
    func savePosition(_ position: ReadingPosition, patronID: UUID, bookID: UUID, logger: Logger) async throws -> ReadingPosition? {
        try ReadingValidation.check(position.locator)
        try await requireReadable(patronID: patronID, bookID: bookID, logger: logger)
        let json = String(decoding: try WireFormat.encode(position.locator), as: UTF8.self)
        let rows = try await client.query(
            """
            INSERT INTO positions AS p (patron_id, book_id, locator, written_at, device)
            VALUES (\(patronID), \(bookID), \(json)::jsonb, \(position.timestamp), \(position.device))
            ON CONFLICT (patron_id, book_id) DO UPDATE SET locator = EXCLUDED.locator, written_at = EXCLUDED.written_at, device = EXCLUDED.device
            WHERE p.written_at <= EXCLUDED.written_at
            RETURNING 1
            """, logger: logger)
        for try await _ in rows { return nil }
        return try await self.position(patronID: patronID, bookID: bookID, logger: logger)
    }

    func position(patronID: UUID, bookID: UUID, logger: Logger) async throws -> ReadingPosition? {
        try await positions(patronID: patronID, bookID: bookID, logger: logger).first?.position
    }

    /// The patron's reading positions, of one book or of all.
    func positions(patronID: UUID, bookID: UUID?, logger: Logger) async throws -> [(bookID: UUID, position: ReadingPosition)] {
        let rows = try await client.query(
            """
            SELECT book_id, locator::text, written_at, device FROM positions
            WHERE patron_id = \(patronID) AND (\(bookID)::uuid IS NULL OR book_id = \(bookID)) ORDER BY book_id
            """, logger: logger)
        var result: [(UUID, ReadingPosition)] = []
        for try await (book, locator, written, device) in rows.decode((UUID, String, Date, String).self) {
            let locator = try WireFormat.decoder().decode(Locator.self, from: Data(locator.utf8))
            result.append((book, ReadingPosition(locator: locator, timestamp: written, device: device)))
        }
        return result
    }

    // MARK: ratings and favourites

    struct Rating: Codable {
        var stars: Int
    }

    /// `PUT /me/books/{id}/rating` `{stars: 1…5}`; the book's average reaches catalog through the outbox.
    func putRating(request: Request, context: BasicRequestContext) async throws -> Response {
        let patronID = try await guardian.require(request, logger: context.logger)
        let bookID = try context.uuid("id")
        let rating = try await JSONMessages.decode(Rating.self, from: request)
        guard (1...5).contains(rating.stars) else { throw Problem.badRequest("stars must be from 1 to 5") }
        try await requireKnownBook(bookID, logger: context.logger)
        try await client.withTransaction(logger: context.logger) { connection in
            try await connection.query(
                """
                INSERT INTO ratings (patron_id, book_id, stars) VALUES (\(patronID), \(bookID), \(rating.stars))
                ON CONFLICT (patron_id, book_id) DO UPDATE SET stars = EXCLUDED.stars, updated_at = now()
                """, logger: context.logger)
            try await Figures.publish(bookID: bookID, on: connection, logger: context.logger)
        }
        return try JSONMessages.response(rating)
    }

    func getRating(request: Request, context: BasicRequestContext) async throws -> Response {
        let patronID = try await guardian.require(request, logger: context.logger)
        let bookID = try context.uuid("id")
        let rows = try await client.query("SELECT stars FROM ratings WHERE patron_id = \(patronID) AND book_id = \(bookID)", logger: context.logger)
        for try await stars in rows.decode(Int.self) { return try JSONMessages.response(Rating(stars: stars)) }
        throw Problem.notFound("You have not rated this book")
    }

    func deleteRating(request: Request, context: BasicRequestContext) async throws -> Response {
        let patronID = try await guardian.require(request, logger: context.logger)
        let bookID = try context.uuid("id")
        try await client.withTransaction(logger: context.logger) { connection in
            let rows = try await connection.query(
                "DELETE FROM ratings WHERE patron_id = \(patronID) AND book_id = \(bookID) RETURNING 1", logger: context.logger)
            for try await _ in rows { try await Figures.publish(bookID: bookID, on: connection, logger: context.logger) }
        }
        return Response(status: .noContent)
    }

    func favorite(_ on: Bool, request: Request, context: BasicRequestContext) async throws -> Response {
        let patronID = try await guardian.require(request, logger: context.logger)
        let bookID = try context.uuid("id")
        if on {
            try await requireKnownBook(bookID, logger: context.logger)
            try await client.query(
                "INSERT INTO favorites (patron_id, book_id) VALUES (\(patronID), \(bookID)) ON CONFLICT DO NOTHING", logger: context.logger)
        } else {
            try await client.query("DELETE FROM favorites WHERE patron_id = \(patronID) AND book_id = \(bookID)", logger: context.logger)
        }
        return Response(status: .noContent)
    }

    // MARK: export

    /// `GET /me/export` → every piece of the patron's data in one JSON document.
    func export(request: Request, context: BasicRequestContext) async throws -> Response {
        let patronID = try await guardian.require(request, logger: context.logger)
        let logger = context.logger
        struct HistoryEntry: Encodable {
            var bookId: UUID
            var loanedAt: Date
            var endedAt: Date?
            var endReason: String?
        }
        struct Export: Encodable {
            var profile: Profile?
            var settings: ReaderSettings?
            var books: [BookStatus]
            var loanHistory: [HistoryEntry]
            var bookmarks: [Bookmark]
            var positions: [String: ReadingPosition]
            var ratings: [String: Int]
            var favorites: [UUID]
            var feedback: [[String: String]]
        }
        var history: [HistoryEntry] = []
        for try await (book, loaned, ended, reason) in try await client.query(
            "SELECT book_id, loaned_at, ended_at, end_reason FROM loan_history WHERE patron_id = \(patronID) ORDER BY id", logger: logger
        ).decode((UUID, Date, Date?, String?).self) {
            history.append(HistoryEntry(bookId: book, loanedAt: loaned, endedAt: ended, endReason: reason))
        }
        var positions: [String: ReadingPosition] = [:]
        for (book, position) in try await self.positions(patronID: patronID, bookID: nil, logger: logger) {
            positions[book.uuidString.lowercased()] = position
        }
        var ratings: [String: Int] = [:]
        for try await (book, stars) in try await client.query("SELECT book_id, stars FROM ratings WHERE patron_id = \(patronID)", logger: logger)
            .decode((UUID, Int).self)
        {
            ratings[book.uuidString.lowercased()] = stars
        }
        var feedback: [[String: String]] = []
        for try await (message, kind, created) in try await client.query(
            "SELECT message, kind, created_at FROM feedback WHERE patron_id = \(patronID) ORDER BY created_at", logger: logger
        ).decode((String, String, Date).self) {
            feedback.append(["message": message, "kind": kind, "createdAt": WireFormat.formatDate(created)])
        }
        var settings: ReaderSettings?
        for try await text in try await client.query("SELECT settings::text FROM settings WHERE patron_id = \(patronID)", logger: logger).decode(
            String.self)
        {
            settings = try WireFormat.decoder().decode(ReaderSettings.self, from: Data(text.utf8))
        }
        let profile = try await ProfileQueries(client: client).profile(patronID: patronID, logger: logger)
        let rules = CirculationRules(loanPeriod: 0, offerPeriod: 0, publicURL: "")
        let books = try await CirculationPostgresRepository(client: client, rules: rules).shelf(patronID: patronID, logger: logger).map {
            $0.status(rules: rules)
        }
        let document = Export(
            profile: profile, settings: settings, books: books, loanHistory: history,
            bookmarks: try await bookmarks(patronID: patronID, bookID: nil, logger: logger), positions: positions, ratings: ratings,
            favorites: profile?.favorites ?? [], feedback: feedback)
        return try JSONMessages.response(document, headers: [.contentDisposition: "attachment; filename=\"bookmobile-export.json\""])
    }

    // MARK: rules

    /// Bookmarks and positions are for books the patron has or had on loan, or open-access books.
    private func requireReadable(patronID: UUID, bookID: UUID, logger: Logger) async throws {
        let rows = try await client.query(
            """
            SELECT EXISTS (SELECT 1 FROM loan_history WHERE patron_id = \(patronID) AND book_id = \(bookID))
                OR EXISTS (SELECT 1 FROM licenses WHERE book_id = \(bookID) AND open_access)
            """, logger: logger)
        for try await allowed in rows.decode(Bool.self) where allowed { return }
        throw Problem.forbidden("Bookmarks and positions are kept for books you have borrowed or open-access books")
    }

    private func requireKnownBook(_ bookID: UUID, logger: Logger) async throws {
        for try await _ in try await client.query("SELECT 1 FROM licenses WHERE book_id = \(bookID)", logger: logger) { return }
        throw Problem.notFound("No book \(bookID)")
    }

    private func requireSyncEnabled(patronID: UUID, logger: Logger) async throws {
        let rows = try await client.query(
            "SELECT coalesce((settings->>'syncBookmarks')::boolean, true) FROM settings WHERE patron_id = \(patronID)", logger: logger)
        for try await enabled in rows.decode(Bool.self) where !enabled {
            throw Problem.conflict("sync-disabled", "Bookmark synchronisation is off in your settings, so no bookmark is kept on the server")
        }
    }

    private func checkHref(_ href: String, bookID: UUID, logger: Logger) async throws {
        let path = PublicationPath.archivePath(of: href)
        guard let hrefs = await readingOrder.hrefs(of: bookID, logger: logger) else { return }
        guard hrefs.contains(path) else { throw Problem.badRequest("locator.href '\(path)' is not in the book's reading order") }
    }
}
