import Foundation
import Hummingbird
import Logging
import ServiceSupport
import Shared

/// `/admin/lanes` (admin tokens): the root and grouped feeds' lanes (featured staff lists, fixed lanes, genres) in their
/// order, with the hidden ones (`GET`); a new order and hidden set (`PUT {"lanes": [{"slug", "hidden"}]}`, every lane
/// named at most once; lanes not named follow in their default order).
struct LaneArrangementController: Sendable {
    let feeds: FeedController
    let arrangement: LaneArrangementPostgresRepository
    /// Cleared on a change: the root and grouped feeds are in it.
    let feedCache: ResponseCache

    func add(to admin: RouterGroup<CatalogRequestContext>) {
        admin.get(.adminLanes) { _, context in try await answer(logger: context.logger) }
        admin.put(.adminLanes, use: replace)
    }

    struct LaneAnswer: Encodable {
        let slug: String
        let title: String
        let kind: String
        let hidden: Bool
    }

    func answer(logger: Logger) async throws -> Response {
        let current = try await arrangement.current(logger: logger)
        let arranged = current.arrange(try await feeds.allLanes(logger: logger).map { ($0.slug, $0) }, keepHidden: true)
        let lanes = arranged.map { slug, lane, hidden -> LaneAnswer in
            let kind: String
            switch lane {
            case .list: kind = "list"
            case .lane(let lane): kind = lane.genre == nil ? "lane" : "genre"
            }
            return LaneAnswer(slug: slug, title: lane.title, kind: kind, hidden: hidden)
        }
        return try JSONMessages.response(["lanes": lanes], headers: [.cacheControl: "no-store"])
    }

    struct Change: Decodable {
        let lanes: [LaneArrangement.Placement]
    }

    func replace(request: Request, context: CatalogRequestContext) async throws -> Response {
        let change = try await JSONMessages.decode(Change.self, from: request)
        guard Set(change.lanes.map(\.slug)).count == change.lanes.count else { throw Problem.badRequest("lanes names a lane twice") }
        let known = Set(try await feeds.allLanes(logger: context.logger).map(\.slug))
        if let unknown = change.lanes.first(where: { !known.contains($0.slug) }) {
            throw Problem.badRequest("No lane '\(unknown.slug)' (a fixed lane, a genre with books, or list-<id> of a featured staff list)")
        }
        try await arrangement.replace(with: LaneArrangement(placements: change.lanes), logger: context.logger)
        feedCache.clear()
        context.logger.info("Lanes arranged", metadata: ["lanes": "\(change.lanes.count)", "staff": "\(AdminCaller.name ?? "admin")"])
        return try await answer(logger: context.logger)
    }
}
