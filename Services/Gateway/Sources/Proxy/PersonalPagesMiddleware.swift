import Hummingbird
import ServiceSupport
import Shared

/// A signed-in feed page from the shared page the edge cache holds (fetched as an anonymous visitor would when it
/// holds none): catalog is asked only whether that page is the patron's, a 204 without a body when none of its books
/// is on the patron's shelf, so the page's bytes do not cross the hop again; otherwise catalog's own answer.
struct PersonalPagesMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    let catalog: Upstream
    let sender: UpstreamSender
    let edgeCache: ResponseCache
    /// Catalog's word that a shared page is a patron's page as it is (the personal ETag it gave), by patron, shared
    /// ETag and the shelf version this gateway last heard for the patron: a change the patron makes through this
    /// gateway brings a new version and so a new question; a change they did not make (an offer), or made through another
    /// gateway replica, shows within `SHARED_PAGE_VERDICT_TTL`, as an anonymous page's change shows within `EDGE_CACHE_TTL`.
    let sharedVerdicts: ExpiringAnswers<String, String>
    /// The pages catalog computed for one patron (a page whose books touch their shelf, or whose feed-level parts are
    /// personal: root, groups), under the same key and for the same time as a verdict (`SHARED_PAGE_VERDICT_TTL`);
    /// after that, asked again with their ETag, so that an unchanged page costs catalog a 304 and not its bytes.
    let personalPages: ResponseCache

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let call = context.upstreamCall, call.upstream === catalog, let patronID = call.patronID, edgeCache.isEnabled,
            EdgeCachePolicy.sharesPages(request.uri.path), let sharedKey = EdgeCachePolicy.key(for: request, ignoringCredentials: true)
        else { return try await next(request, context) }
        var shared = edgeCache.get(sharedKey) ?? edgeCache.stale(sharedKey)
        if shared == nil {
            // As an anonymous visitor's miss would: concurrent misses of the page fetch it once.
            let anonymous = UpstreamCall(
                upstream: catalog,
                patronID: nil,
                clientAddress: call.clientAddress,
                carriesOwnCredentials: false,
                cacheKey: sharedKey
            )
            _ = try await edgeCache.respond(to: request, key: sharedKey) { try await sender.send(request, anonymous, logger: context.logger) }
            shared = edgeCache.get(sharedKey)
        }
        guard let shared, let etag = shared.headers[.eTag] else { return try await next(request, context) }
        let verdictKey = "\(patronID)|\(etag)|\(call.shelfVersion ?? "")"
        var cacheControl = "private, no-cache"
        let personalETag: String
        if let known = sharedVerdicts[verdictKey] {
            personalETag = known
        } else {
            let response = try await sender.throughHeldCopy(
                request,
                call,
                key: "\(verdictKey)|\(sharedKey)",
                in: personalPages,
                maxBytes: EdgeCachePolicy.maxEntryBytes,
                answerFresh: true,
                extra: [(InternalHeader.sharedETag, etag)],
                logger: context.logger
            )
            guard response.status == .noContent, response.headers[.sharedPageUsable] == "yes", let answered = response.headers[.eTag] else {
                return response
            }
            personalETag = answered
            cacheControl = response.headers[.cacheControl] ?? cacheControl
            sharedVerdicts.remember(answered, for: verdictKey)
        }
        var page = shared
        page.headers[.eTag] = personalETag
        page.headers[.cacheControl] = cacheControl
        page.headers[.age] = nil
        return page.response(to: request)
    }
}
