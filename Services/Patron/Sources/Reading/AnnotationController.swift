import Foundation
import Hummingbird
import NIOCore
import NIOFoundationCompat
import ServiceSupport
import Shared

/// `/me/annotations/`: the patron's bookmarks and reading positions as W3C Web Annotations, for OPDS library
/// apps (Palace/SimplyE). Backed by the same rows as `/me/books/{id}/bookmarks` and `/position`.
struct AnnotationController: Sendable {
    let sync: ReadingSync
    let annotations: AnnotationPostgresRepository
    let publicURL: String

    func add(to me: some RouterMethods<SignedInRequestContext>) {
        me.get(.annotations, use: list)
        me.get(.annotation(.key), use: list)
        me.post(.annotations, use: create)
        me.delete(.annotation(.key), use: delete)
    }

    /// Annotations per page. Palace/SimplyE read only the first page of a collection, so a page holds every
    /// bookmark of a book and far more than most patrons keep at all.
    static let pageSize = 1_000

    /// `GET /me/annotations/` (all books) or `/me/annotations/{bookId}` → an `AnnotationCollection` with its first
    /// page; `?page=N` → that `AnnotationPage`. Bookmarks come first (oldest first), then reading positions.
    func list(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let bookID = try context.parameters.get("id").map { _ in try context.uuid("id") }
        let pageParameter = request.uri.queryParameters.get("page")
        guard let number = pageParameter.map({ Int($0) }) ?? 1, number >= 1, number <= 1_000_000 else {
            throw Problem.badRequest("page must be a whole number from 1")
        }
        let counts = try await annotations.counts(patronID: patronID, bookID: bookID, logger: context.logger)
        let total = counts.bookmarks + counts.positions
        let start = (number - 1) * Self.pageSize
        let bookmarks = try await sync.bookmarks.bookmarks(
            patronID: patronID,
            bookID: bookID,
            range: min(start, counts.bookmarks)..<min(start + Self.pageSize, counts.bookmarks),
            logger: context.logger
        )
        let positions = try await sync.positions.positions(
            patronID: patronID,
            bookID: bookID,
            range: max(0, start - counts.bookmarks)..<max(0, start + Self.pageSize - counts.bookmarks),
            logger: context.logger
        )
        let items =
            bookmarks.map { Annotation.json($0, publicURL: publicURL) }
            + positions.map { Annotation.json($0.position, bookID: $0.bookID, publicURL: publicURL) }
        let id = PublicRoute.annotations(bookID).url(publicURL)
        let page = Annotation.page(items, collection: id, number: number, startIndex: start, hasNext: start + Self.pageSize < total)
        if pageParameter != nil { return try respond(page, status: .ok) }
        let lastPage = max(1, (total + Self.pageSize - 1) / Self.pageSize)
        return try respond(Annotation.collection(first: page, id: id, total: total, lastPage: lastPage), status: .ok)
    }

    /// `POST /me/annotations/` → 201 with a new bookmark, 200 with the same place bookmarked before or with the
    /// position kept; 409 with the newer position when this one is older; 409 when sync is off in the settings.
    func create(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        guard let json = try? JSONSerialization.jsonObject(with: try await JSONMessages.body(of: request)) as? [String: Any] else {
            throw Problem.badRequest("The body is not a JSON object")
        }
        switch try Annotation.parse(json) {
        case .bookmark(let bookID, let body):
            let (bookmark, created) = try await sync.saveBookmark(body, patronID: patronID, bookID: bookID, logger: context.logger)
            return try respond(Annotation.json(bookmark, publicURL: publicURL), status: created ? .created : .ok)
        case .position(let bookID, let position):
            if let newer = try await sync.savePosition(position, patronID: patronID, bookID: bookID, logger: context.logger) {
                return try respond(Annotation.json(newer, bookID: bookID, publicURL: publicURL), status: .conflict)
            }
            return try respond(Annotation.json(position, bookID: bookID, publicURL: publicURL), status: .ok)
        }
    }

    /// `DELETE /me/annotations/{id}` → 204 for one of the patron's bookmarks; 404 otherwise.
    func delete(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        try await sync.removeBookmark(try context.uuid("id"), patronID: patronID, logger: context.logger)
        return Response(status: .noContent)
    }

    private func respond(_ document: [String: Any], status: HTTPResponse.Status) throws -> Response {
        Response(
            status: status,
            headers: [.contentType: Annotation.contentType, .cacheControl: "private, no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: JSONWriter.bytes(document)))
        )
    }
}
