import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceSupport
import Shared

/// `/me/books/{id}/bookmarks`, `/me/bookmarks/{id}`, `/me/books/{id}/position`, `/me/books/{id}/rating`,
/// `/me/favorites/{id}` and `/me/export`.
struct ReadingController: Sendable {
    let reading: ReadingPostgresRepository
    let profiles: ProfilePostgresRepository
    let circulation: CirculationPostgresRepository
    let readingOrder: ReadingOrderCache
    let bookmarkLimit: Int

    func add(to me: some RouterMethods<SignedInRequestContext>) {
        me.get("/books/:id/bookmarks", use: listBookmarks)
        me.post("/books/:id/bookmarks", use: addBookmark)
        me.delete("/bookmarks/:id", use: deleteBookmark)
        me.get("/books/:id/position", use: getPosition)
        me.put("/books/:id/position", use: putPosition)
        me.put("/books/:id/rating", use: putRating)
        me.delete("/books/:id/rating", use: deleteRating)
        me.get("/books/:id/rating", use: getRating)
        me.put("/favorites/:id") { request, context in try await favorite(true, request: request, context: context) }
        me.delete("/favorites/:id") { request, context in try await favorite(false, request: request, context: context) }
        me.get("/export", use: export)
    }

    // MARK: bookmarks

    /// `GET /me/books/{id}/bookmarks`: the book's bookmarks (at most `BOOKMARK_LIMIT` exist).
    func listBookmarks(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        return try JSONMessages.response(["bookmarks": try await reading.bookmarks(patronID: patronID, bookID: bookID, logger: context.logger)])
    }

    /// `POST /me/books/{id}/bookmarks` → 201 with the bookmark, 200 with the existing one for the same place.
    func addBookmark(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        let body = try await JSONMessages.decode(BookmarkRequest.self, from: request)
        let (bookmark, created) = try await saveBookmark(body, patronID: patronID, bookID: bookID, logger: context.logger)
        return try JSONMessages.response(bookmark, status: created ? .created : .ok)
    }

    /// Validates and keeps a bookmark (once per place, at most `bookmarkLimit` per patron); also used by the
    /// annotations API.
    func saveBookmark(_ body: BookmarkRequest, patronID: UUID, bookID: UUID, logger: Logger) async throws -> (Bookmark, created: Bool) {
        let locator = try body.validatedLocator()
        try await requireReadable(patronID: patronID, bookID: bookID, logger: logger)
        guard try await reading.syncsBookmarks(patronID: patronID, logger: logger) else {
            throw Problem.conflict("sync-disabled", "Bookmark synchronisation is off in your settings, so no bookmark is kept on the server")
        }
        try await checkHref(locator.href, bookID: bookID, logger: logger)
        let (id, created) = try await reading.saveBookmark(
            locator,
            key: ReadingValidation.key(locator),
            chapter: body.chapter,
            snippet: body.snippet,
            device: body.device,
            patronID: patronID,
            bookID: bookID,
            limit: bookmarkLimit,
            logger: logger
        )
        guard let bookmark = try await reading.bookmarks(patronID: patronID, bookID: bookID, id: id, logger: logger).first else {
            throw Problem.conflict("bookmark-race", "The bookmark changed meanwhile; try again")
        }
        return (bookmark, created)
    }

    /// `DELETE /me/bookmarks/{id}` → 204; 404 for an unknown bookmark or another patron's.
    func deleteBookmark(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        try await removeBookmark(try context.uuid("id"), patronID: patronID, logger: context.logger)
        return Response(status: .noContent)
    }

    /// Deletes one of the patron's bookmarks; 404 for an unknown id or another patron's.
    func removeBookmark(_ id: UUID, patronID: UUID, logger: Logger) async throws {
        guard try await reading.removeBookmark(id, patronID: patronID, logger: logger) else { throw Problem.notFound("No bookmark \(id)") }
    }

    // MARK: positions

    func getPosition(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        guard let position = try await position(patronID: patronID, bookID: bookID, logger: context.logger) else {
            throw Problem.notFound("No reading position for this book yet")
        }
        return try JSONMessages.response(position)
    }

    /// `PUT /me/books/{id}/position` → 200 when this write is the newest; 409 with the newer position otherwise.
    func putPosition(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
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
        if try await reading.savePosition(position, patronID: patronID, bookID: bookID, logger: logger) { return nil }
        return try await self.position(patronID: patronID, bookID: bookID, logger: logger)
    }

    func position(patronID: UUID, bookID: UUID, logger: Logger) async throws -> ReadingPosition? {
        try await reading.positions(patronID: patronID, bookID: bookID, logger: logger).first?.position
    }

    // MARK: ratings and favourites

    struct Rating: Codable {
        var stars: Int
    }

    /// `PUT /me/books/{id}/rating` `{stars: 1…5}`; the book's average reaches catalog through the outbox.
    func putRating(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        let rating = try await JSONMessages.decode(Rating.self, from: request)
        guard (1...5).contains(rating.stars) else { throw Problem.badRequest("stars must be from 1 to 5") }
        try await requireKnownBook(bookID, logger: context.logger)
        try await reading.rate(rating.stars, patronID: patronID, bookID: bookID, logger: context.logger)
        return try JSONMessages.response(rating)
    }

    func getRating(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        guard let stars = try await reading.rating(patronID: patronID, bookID: bookID, logger: context.logger) else {
            throw Problem.notFound("You have not rated this book")
        }
        return try JSONMessages.response(Rating(stars: stars))
    }

    func deleteRating(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        try await reading.removeRating(patronID: patronID, bookID: try context.uuid("id"), logger: context.logger)
        return Response(status: .noContent)
    }

    func favorite(_ on: Bool, request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        if on { try await requireKnownBook(bookID, logger: context.logger) }
        try await reading.setFavorite(on, patronID: patronID, bookID: bookID, logger: context.logger)
        return Response(status: .noContent)
    }

    // MARK: export

    /// `GET /me/export` → every piece of the patron's data in one JSON document, written as it is read: the parts
    /// that can grow for years (loan history, bookmarks, positions) a page of rows at a time.
    func export(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let logger = context.logger
        let reading = self.reading
        let profile = try await profiles.profile(patronID: patronID, logger: logger)
        let settings = try await reading.readerSettings(patronID: patronID, logger: logger)
        let rules = circulation.rules
        let books = try await circulation.shelf(patronID: patronID, logger: logger).map { $0.status(rules: rules) }
        let ratings = try await reading.ratings(patronID: patronID, logger: logger)
        let feedback = try await reading.feedback(patronID: patronID, logger: logger)
        // The patron's lists are kept by catalog; when it cannot be asked the export says so rather than omit them.
        let lists = try? await readingOrder.catalog.get(
            InternalRoute.patronLists(patronID).path,
            as: ExportedLists.self,
            logger: logger
        )
        let page = 500
        let body = ResponseBody { writer in
            func write(_ text: String) async throws { try await writer.write(ByteBuffer(string: text)) }
            func write(_ name: String, _ value: some Encodable) async throws {
                try await write("\"\(name)\":" + String(decoding: try WireFormat.encode(value), as: UTF8.self))
            }
            try await write("{")
            try await write("profile", profile)
            try await write(",")
            try await write("settings", settings)
            try await write(",")
            try await write("books", books)
            try await write(",")
            try await write("favorites", profile?.favorites ?? [])
            try await write(",")
            try await write("ratings", Dictionary(uniqueKeysWithValues: ratings.map { ($0.bookID.lowercased, $0.stars) }))
            try await write(",")
            try await write("feedback", feedback)
            try await write(",")
            if let lists {
                try await write("lists", lists.lists)
            } else {
                try await write("lists", "unavailable: the catalog service could not be asked; export again to include your lists")
            }
            try await write(",\"loanHistory\":[")
            var after: Int64 = 0
            var separator = ""
            while true {
                let rows = try await reading.loanHistory(patronID: patronID, after: after, limit: page, logger: logger)
                for row in rows {
                    try await write(separator + String(decoding: try WireFormat.encode(row.entry), as: UTF8.self))
                    separator = ","
                }
                guard rows.count == page, let last = rows.last else { break }
                after = last.number
            }
            try await write("],\"bookmarks\":[")
            separator = ""
            for start in stride(from: 0, to: Int.max, by: page) {
                let rows = try await reading.bookmarks(patronID: patronID, bookID: nil, range: start..<(start + page), logger: logger)
                for bookmark in rows {
                    try await write(separator + String(decoding: try WireFormat.encode(bookmark), as: UTF8.self))
                    separator = ","
                }
                if rows.count < page { break }
            }
            try await write("],\"positions\":{")
            separator = ""
            for start in stride(from: 0, to: Int.max, by: page) {
                let rows = try await reading.positions(patronID: patronID, bookID: nil, range: start..<(start + page), logger: logger)
                for (bookID, position) in rows {
                    try await write(separator + "\"\(bookID.lowercased)\":" + String(decoding: try WireFormat.encode(position), as: UTF8.self))
                    separator = ","
                }
                if rows.count < page { break }
            }
            try await write("}}")
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/json", .contentDisposition: "attachment; filename=\"bookmobile-export.json\"",
                .cacheControl: "private, no-store",
            ],
            body: body
        )
    }

    // MARK: rules

    private func requireReadable(patronID: UUID, bookID: UUID, logger: Logger) async throws {
        guard try await reading.isReadable(patronID: patronID, bookID: bookID, logger: logger) else {
            throw Problem.forbidden("Bookmarks and positions are kept for books you have borrowed or open-access books")
        }
    }

    private func requireKnownBook(_ bookID: UUID, logger: Logger) async throws {
        guard try await reading.isKnownBook(bookID, logger: logger) else { throw Problem.notFound("No book \(bookID)") }
    }

    private func checkHref(_ href: String, bookID: UUID, logger: Logger) async throws {
        let path = PublicationPath.archivePath(of: href)
        guard let hrefs = await readingOrder.hrefs(of: bookID, logger: logger) else { return }
        guard hrefs.contains(path) else { throw Problem.badRequest("locator.href '\(path)' is not in the book's reading order") }
    }
}
