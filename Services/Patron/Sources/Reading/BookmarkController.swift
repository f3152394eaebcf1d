import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceSupport
import Shared

/// `/me/books/{id}/bookmarks` and `/me/bookmarks/{id}`: a book's bookmarks.
struct BookmarkController: Sendable {
    let bookmarks: BookmarkPostgresRepository
    let sync: ReadingSync

    func add(to me: some RouterMethods<SignedInRequestContext>) {
        me.get(.bookmarks(.key), use: listBookmarks)
        me.post(.bookmarks(.key), use: addBookmark)
        me.delete(.bookmark(.key), use: deleteBookmark)
    }

    /// `GET /me/books/{id}/bookmarks`: the book's bookmarks (at most `BOOKMARK_LIMIT` exist).
    func listBookmarks(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        return try JSONMessages.response(["bookmarks": try await bookmarks.bookmarks(patronID: patronID, bookID: bookID, logger: context.logger)])
    }

    /// `POST /me/books/{id}/bookmarks` → 201 with the bookmark, 200 with the existing one for the same place.
    func addBookmark(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.uuid("id")
        let body = try await JSONMessages.decode(BookmarkRequest.self, from: request)
        let (bookmark, created) = try await sync.saveBookmark(body, patronID: patronID, bookID: bookID, logger: context.logger)
        return try JSONMessages.response(bookmark, status: created ? .created : .ok)
    }

    /// `DELETE /me/bookmarks/{id}` → 204; 404 for an unknown bookmark or another patron's.
    func deleteBookmark(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        try await sync.removeBookmark(try context.uuid("id"), patronID: patronID, logger: context.logger)
        return Response(status: .noContent)
    }
}
