import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceSupport
import Shared

/// Keeps bookmarks and reading positions under the reading rules (books the patron has or had on loan or open-access
/// ones, places in the book's reading order, the patron's sync setting, the bookmark limit), for both APIs that write
/// them: `/me/books/{id}/...` and the annotations.
struct ReadingSync: Sendable {
    let bookmarks: BookmarkPostgresRepository
    let positions: PositionPostgresRepository
    let profiles: ProfilePostgresRepository
    let circulation: CirculationPostgresRepository
    let readingOrder: ReadingOrderCache
    let bookmarkLimit: Int

    /// Validates and keeps a bookmark (once per place, at most `bookmarkLimit` per patron); also used by the
    /// annotations API.
    func saveBookmark(_ body: BookmarkRequest, patronID: UUID, bookID: UUID, logger: Logger) async throws -> (Bookmark, created: Bool) {
        let locator = try body.validatedLocator()
        try await requireReadable(patronID: patronID, bookID: bookID, logger: logger)
        guard try await profiles.settings(patronID: patronID, logger: logger).syncBookmarks else {
            throw Problem.conflict("sync-disabled", "Bookmark synchronisation is off in your settings, so no bookmark is kept on the server")
        }
        try await checkHref(locator.href, bookID: bookID, logger: logger)
        let (id, created) = try await bookmarks.saveBookmark(
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
        guard let bookmark = try await bookmarks.bookmarks(patronID: patronID, bookID: bookID, id: id, logger: logger).first else {
            throw Problem.conflict("bookmark-race", "The bookmark changed meanwhile; try again")
        }
        return (bookmark, created)
    }

    /// Deletes one of the patron's bookmarks; 404 for an unknown id or another patron's.
    func removeBookmark(_ id: UUID, patronID: UUID, logger: Logger) async throws {
        guard try await bookmarks.removeBookmark(id, patronID: patronID, logger: logger) else { throw Problem.notFound("No bookmark \(id)") }
    }

    /// Keeps `position` unless a newer one exists, which is then returned (last writer by timestamp wins).
    func savePosition(_ position: ReadingPosition, patronID: UUID, bookID: UUID, logger: Logger) async throws -> ReadingPosition? {
        try ReadingValidation.check(position.locator)
        try await requireReadable(patronID: patronID, bookID: bookID, logger: logger)
        if try await positions.savePosition(position, patronID: patronID, bookID: bookID, logger: logger) { return nil }
        return try await self.position(patronID: patronID, bookID: bookID, logger: logger)
    }

    func position(patronID: UUID, bookID: UUID, logger: Logger) async throws -> ReadingPosition? {
        try await positions.positions(patronID: patronID, bookID: bookID, logger: logger).first?.position
    }

    func requireReadable(patronID: UUID, bookID: UUID, logger: Logger) async throws {
        guard try await circulation.isReadable(patronID: patronID, bookID: bookID, logger: logger) else {
            throw Problem.forbidden("Bookmarks and positions are kept for books you have borrowed or open-access books")
        }
    }

    func requireKnownBook(_ bookID: UUID, logger: Logger) async throws {
        guard try await circulation.isKnownBook(bookID, logger: logger) else { throw Problem.notFound("No book \(bookID)") }
    }

    func checkHref(_ href: String, bookID: UUID, logger: Logger) async throws {
        let path = PublicationPath.archivePath(of: href)
        guard let hrefs = await readingOrder.hrefs(of: bookID, logger: logger) else { return }
        guard hrefs.contains(path) else { throw Problem.badRequest("locator.href '\(path)' is not in the book's reading order") }
    }
}
