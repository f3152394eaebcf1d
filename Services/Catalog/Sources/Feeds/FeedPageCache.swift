import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import ServiceSupport
import Shared

/// The feed pages' caching and personal overlay. A page's shared part is computed once for everyone and kept in the
/// feed cache; a signed-in patron gets it as it is when no book on it is on their shelf or ignored by them, otherwise
/// a page computed for them, kept in the personal cache: from the rows the shared page was made from when the books the
/// patron hides would not change them (`FeedController.page(of:)` and `search`), so that a page showing a book the
/// patron borrows or waits for costs a rendering, not a second reading.
struct FeedPageCache: Sendable {
    let shelves: PatronShelves
    let cache: ResponseCache
    /// Pages computed for one patron (their shelf touches the page), kept under the shared page's ETag and the
    /// shelf's version, so that any change to either makes a new entry: an app reloading a page pays once.
    let personalCache: ResponseCache

    /// How a signed-in patron's page was answered (`bookmobile_personal_pages_total{answer=}`): the shared page, catalog's
    /// word that the gateway's copy is theirs, the bytes for the gateway to splice into it, a page rendered for them, or
    /// one kept from an earlier request.
    enum Answer: String, CaseIterable {
        case shared, verdict, spliced, rendered, kept

        private static let counters = Dictionary(
            uniqueKeysWithValues: allCases.map { ($0, Counter(label: "bookmobile_personal_pages_total", dimensions: [("answer", $0.rawValue)])) }
        )
        func count() { Self.counters[self]?.increment() }
    }

    typealias PageHandler = @Sendable (Request, CatalogRequestContext, PatronOverlay) async throws -> StoredResponse

    /// A page's shared part is computed once for everyone and kept in the feed cache (`FEED_CACHE_TTL`, stale for as
    /// long again); this replica's admin changes clear it. An anonymous visitor gets it as it is. A signed-in patron
    /// gets the same bytes (private, under an ETag that covers their shelf's version) when no book on the page is on
    /// their shelf or ignored by them; otherwise, and for pages whose feed-level parts are personal (`alwaysPersonal`),
    /// the page is computed for them.
    func serve(_ handler: @escaping PageHandler, alwaysPersonal: Bool = false) -> @Sendable (Request, CatalogRequestContext) async throws -> Response
    {
        { request, context in
            let key = cacheKey(request)
            let limit = try FeedRequest.audienceLimit(request)
            // The page as every visitor gets it, computed again: the copy held goes with it, kept if nothing changed.
            let anonymous: @Sendable () -> PatronOverlay = {
                var overlay = PatronOverlay.anonymous
                overlay.heldPage = cache.stale(key)
                overlay.limit = limit
                return overlay
            }
            guard let patronID = context.patronID else {
                // A gateway's background fetch of its stale copy gets a page computed now when this copy is stale too
                // (it would keep this one for its own TTL); any other request gets the stale copy at once.
                let recompute: @Sendable () async throws -> Void = { cache.put(key, try await handler(request, context, anonymous())) }
                let refresh = request.headers[.staleRefresh] == "yes" ? nil : recompute
                var response = try await cache.respond(to: request, key: key, refresh: refresh) {
                    let page = try await handler(request, context, anonymous())
                    cache.put(key, page)
                    return page.response(to: request)
                }
                // The gateway keeps the page for signed-in patrons too: it needs its books to join it with a shelf.
                if !alwaysPersonal, response.status == .ok, let page = cache.get(key) ?? cache.stale(key) {
                    response.headers[.pageBooks] = PersonalPage.pageBooksHeader(page.bookIDs)
                }
                return response
            }
            let copy = try await shelves.shelf(patronID: patronID, seen: request.shelfVersionSeen, logger: context.logger)
            var personal = PatronOverlay(shelf: copy.shelf, version: copy.version)
            personal.limit = limit
            func personalPage(key personalKey: String, _ overlay: PatronOverlay) async throws -> Response {
                if let page = personalCache.get(personalKey) {
                    Answer.kept.count()
                    return page.response(to: request)
                }
                let made = try await handler(request, context, overlay)
                // Only the bytes that differ, for the gateway to splice into the page it holds: a few KB, not kept.
                if made.headers[.sharedPageUsable] == "splice" {
                    Answer.spliced.count()
                    return Self.spliceAnswer(made, to: request)
                }
                Answer.rendered.count()
                let page = overlay.personalised(made)
                personalCache.put(personalKey, page)
                return page.response(to: request)
            }
            if alwaysPersonal { return try await personalPage(key: "\(key)|\(patronID.uuidString)|\(copy.version)", personal) }
            let shared = try await sharedPage(key: key) { @Sendable in try await handler(request, context, anonymous()) }
            if personal.sharesPage(showing: shared.bookIDs) {
                // The gateway holds the shared bytes already: it only needs to hear that they are this patron's page.
                if let held = request.headers[.sharedETag], held == shared.headers[.eTag] {
                    Answer.verdict.count()
                    return Response(
                        status: .noContent,
                        headers: [
                            .sharedPageUsable: "yes", .eTag: personal.personalETag(held), .cacheControl: PersonalPage.cacheControl,
                        ]
                    )
                }
                Answer.shared.count()
                return personal.personalised(shared).response(to: request)
            }
            // The handler may make the patron's page from the rows the shared page was made from (`sharedRows`).
            var withRows = personal
            withRows.sharedRows = (shared.source as? RenderedFeed)?.rows
            // A gateway holding these very bytes uncompressed can take only the bytes that differ (`FeedSplice`).
            if request.headers[.spliceAccepted] == "yes", let held = request.headers[.sharedETag], held == shared.headers[.eTag] {
                withRows.spliceOnto = shared
            }
            return try await personalPage(key: "\(key)|\(shared.headers[.eTag] ?? "")|\(patronID.uuidString)|\(copy.version)", withRows)
        }
    }

    /// A splice (`FeedSplice`) as the answer: a 304 when the gateway's copy of the page it makes is current.
    static func spliceAnswer(_ splice: StoredResponse, to request: Request) -> Response {
        if let etag = splice.headers[.splicedETag], request.headers.ifNoneMatch(matches: etag) {
            return Response(status: .notModified, headers: [.eTag: etag, .cacheControl: PersonalPage.cacheControl])
        }
        return splice.response(to: request)
    }

    /// The page as every visitor gets it: from the feed cache (fresh, or stale while it is computed again in the
    /// background), else computed and kept.
    func sharedPage(key: String, compute: @escaping @Sendable () async throws -> StoredResponse) async throws -> StoredResponse {
        let cache = self.cache
        if let page = cache.copy(key, refreshingStaleWith: { cache.put(key, try await compute()) }) { return page }
        let page = try await compute()
        cache.put(key, page)
        return page
    }

    /// What makes two anonymous requests get the same bytes: the path and the parameters feeds understand, OPDS 1 or 2,
    /// gzip or not. A padded URL maps to the same entry as the plain one.
    func cacheKey(_ request: Request) -> String {
        let query = FeedRequest.knownQuery(request).joined(separator: "&")
        return
            "\(request.uri.path)?\(query)|\(FeedRequest.wantsJSON(request) ? "json" : "atom")|\(Gzip.accepted(by: request.headers[.acceptEncoding]) ? "gzip" : "")"
    }
}
