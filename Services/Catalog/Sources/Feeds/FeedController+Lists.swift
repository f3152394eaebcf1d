import Foundation
import Hummingbird
import Logging
import ServiceSupport
import Shared

/// `/opds/lists/{id}`: a book list as an acquisition feed, in list order, paged by position. A private list is only
/// its owner's (404 to anyone else, as a list that does not exist); a public one anyone's with the link.
extension FeedController {
    func listFeed(request: Request, context: CatalogRequestContext) async throws -> Response {
        let id = try context.uuid("id")
        let caller = context.patronID
        guard let (list, owner) = try await lists.list(id, logger: context.logger), list.isPublic || (owner != nil && owner == caller) else {
            throw Problem.notFound("No list \(id.lowercased)")
        }
        var personal = PatronOverlay.anonymous
        if let caller {
            let copy = try await shelves.shelf(patronID: caller, seen: request.shelfVersionSeen, logger: context.logger)
            personal = PatronOverlay(shelf: copy.shelf, version: copy.version)
        }
        personal.limit = try FeedRequest.audienceLimit(request)
        let query = request.uri.queryParameters
        let size =
            try query.get("size").map { text in
                guard let size = Int(text), (1...100).contains(size) else { throw Problem.badRequest("size must be from 1 to 100") }
                return size
            } ?? 50
        let after =
            try query.get("after").map { text in
                guard let after = Int(text), after >= 0 else { throw Problem.badRequest("after must be a list position") }
                return after
            } ?? 0
        let (books, next) = try await lists.page(id, after: after, size: size, hidden: personal.hidden, logger: context.logger)
        let path = PublicRoute.listFeed(id).path
        // The first page is the list's own URL, without a query.
        func link(after: Int) -> String { path + (after > 0 ? QueryString().adding("after", String(after)).adding("size", String(size)).suffix : "") }
        var feed = Feed(
            id: publicURL + path,
            title: list.title,
            kind: .acquisition,
            links: baseLinks(self: link(after: after), type: MediaType.acquisition)
        )
        if let next {
            feed.links.append(Feed.Link(rel: "next", href: publicURL + link(after: next), type: MediaType.acquisition))
        }
        feed.entries = entries(books, personal)
        var page = try responder.render(feed, request: request)
        if caller != nil { page = personal.personalised(page) }
        if !list.isPublic { page.headers[.cacheControl] = "private, no-cache" }
        return page.response(to: request)
    }

    /// A lane of the root and grouped feeds: a featured staff list, or a fixed or genre lane.
    enum ArrangedLane: Sendable {
        case list(BookList, path: String)
        case lane(Lane)

        var slug: String {
            switch self {
            case .list(let list, _): LaneArrangement.slug(ofList: list.id)
            case .lane(let lane): lane.slug
            }
        }

        var title: String {
            switch self {
            case .list(let list, _): list.title
            case .lane(let lane): lane.title
            }
        }

        var path: String {
            switch self {
            case .list(_, let path): path
            case .lane(let lane): lane.path
            }
        }
    }

    /// Every lane the root and grouped feeds could show, in its default order: featured staff lists, the fixed lanes,
    /// the genres that have books.
    func allLanes(logger: Logger) async throws -> [ArrangedLane] {
        let featured = try await lists.featured(logger: logger).map { ArrangedLane.list($0, path: PublicRoute.listFeed($0.id).path) }
        return featured + (Lane.fixed + (try await feeds.genreLanes(logger: logger))).map(ArrangedLane.lane)
    }

    /// The lanes the root and grouped feeds show, as staff arranged them (`LaneArrangement`).
    func arrangedLanes(logger: Logger) async throws -> [ArrangedLane] {
        let arrangement = try await arrangement.current(logger: logger)
        return arrangement.arrange(try await allLanes(logger: logger).map { ($0.slug, $0) }).map(\.item)
    }
}
