import Foundation
import Hummingbird
import Logging
import ServiceSupport
import Shared

/// A signed-in feed page from the shared page the edge cache holds (fetched as an anonymous visitor would when it
/// holds none). When catalog said which books the page shows, it is joined here with what the gateway knows of the
/// patron's shelf (`ShelfSummaries`): a page none of whose books is on the shelf or ignored is the patron's page as it
/// is (`PersonalPage`), with no hop to catalog. Otherwise catalog is asked whether the page is the patron's (a 204
/// without a body when it is, so the page's bytes do not cross the hop again) or for the patron's own page: when the
/// page is held uncompressed, as the bytes that differ from it, spliced in here (`PageSplice`).
struct PersonalPagesMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    let catalog: Upstream
    let sender: UpstreamSender
    let edgeCache: ResponseCache
    let shelves: ShelfSummaries
    /// Catalog's word that a shared page is a patron's page as it is (the personal ETag it gave), by patron, shared
    /// ETag and shelf version. Catalog makes a patron's page from the shared page and its copy of their shelf alone, so
    /// when the patron's shelf summary names the version (`ShelfSummaries`: current within 50 ms of any change through
    /// any gateway while announcements are followed, within `SHARED_PAGE_VERDICT_TTL` otherwise), the verdict is kept
    /// under that version for as long as a summary may stand (`versionedLifetime`), and catalog is asked to answer from
    /// at least that version: any change to the shelf makes a new key. Without a summary, under the version this gateway
    /// last heard for the patron, for `SHARED_PAGE_VERDICT_TTL`: a change they did not make (an offer), or made through
    /// another gateway replica, shows within that time.
    let sharedVerdicts: ExpiringAnswers<String, String>
    /// The pages catalog computed for one patron (a page whose books touch their shelf, or whose feed-level parts are
    /// personal: root, groups), under the same key and for the same time as a verdict; after that, asked again with
    /// their ETag, so that an unchanged page costs catalog a 304 and not its bytes.
    let personalPages: ResponseCache
    /// How long a verdict or a page kept under the version a shelf summary named holds (`ShelfSummaries.followedLifetime`).
    let versionedLifetime: TimeInterval

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let call = context.upstreamCall, call.upstream === catalog, let patronID = call.patronID, edgeCache.isEnabled,
            EdgeCachePolicy.sharesPages(request.uri.path), let sharedKey = EdgeCachePolicy.key(for: request, ignoringCredentials: true)
        else { return try await next(request, context) }
        // Fetched as an anonymous visitor's request would be: a stale page again in the background, a missing one
        // once for concurrent misses.
        let anonymous = UpstreamCall(
            upstream: catalog,
            patronID: nil,
            clientAddress: call.clientAddress,
            carriesOwnCredentials: false,
            cacheKey: sharedKey
        )
        let (sender, logger) = (self.sender, context.logger)
        var shared = edgeCache.copy(sharedKey) { try await sender.refreshStale(request, anonymous, logger: logger) }
        if shared == nil {
            _ = try await edgeCache.respond(to: request, key: sharedKey) { try await sender.send(request, anonymous, logger: context.logger) }
            shared = edgeCache.get(sharedKey)
        }
        guard let shared, let etag = shared.headers[.eTag] else { return try await next(request, context) }
        var summary: ShelfSummary?
        if shared.sharedWithPatrons {
            summary = shelves.known(of: patronID, versionHeard: call.shelfVersion)
            if summary == nil { summary = await shelves.summary(of: patronID, versionHeard: call.shelfVersion, logger: context.logger) }
        }
        if let summary, PersonalPage.isShared(pageBooks: shared.bookIDs, touched: summary.touched) {
            return personal(shared, etag: PersonalPage.etag(shared: etag, shelfVersion: summary.version), cacheControl: PersonalPage.cacheControl)
                .response(to: request)
        }
        // The page is the patron's own: catalog's answer, kept under the version the summary names when there is one.
        var asked = call
        if let summary { asked.shelfVersion = String(summary.version) }
        let lifetime = summary == nil ? sharedVerdicts.lifetime : versionedLifetime
        let verdictKey = "\(patronID)|\(etag)|\(summary == nil ? "heard" : "v")\(asked.shelfVersion ?? "")"
        var cacheControl = PersonalPage.cacheControl
        let personalETag: String
        if let known = sharedVerdicts[verdictKey] {
            personalETag = known
        } else {
            let pageKey = "\(verdictKey)|\(sharedKey)"
            // Held uncompressed, the page can take only the bytes that differ for the patron (`PageSplice`).
            let spliceable = shared.headers[.contentEncoding] == nil
            let response = try await sender.throughHeldCopy(
                request,
                asked,
                key: pageKey,
                in: personalPages,
                maxBytes: EdgeCachePolicy.maxEntryBytes,
                answerFresh: true,
                lifetime: .seconds(lifetime),
                extra: [(InternalHeader.sharedETag, etag)] + (spliceable ? [(InternalHeader.spliceAccepted, "yes")] : []),
                logger: context.logger
            )
            if response.headers[.sharedPageUsable] == "splice" {
                let page = try await spliced(shared, by: response, logger: context.logger)
                personalPages.put(pageKey, page, lifetime: .seconds(lifetime))
                return page.response(to: request)
            }
            guard response.status == .noContent, response.headers[.sharedPageUsable] == "yes", let answered = response.headers[.eTag] else {
                return response
            }
            personalETag = answered
            cacheControl = response.headers[.cacheControl] ?? cacheControl
            sharedVerdicts.remember(answered, for: verdictKey, lifetime: lifetime)
        }
        return personal(shared, etag: personalETag, cacheControl: cacheControl).response(to: request)
    }

    /// The shared page with the parts of catalog's splice answer in place, under the ETag catalog gave.
    private func spliced(_ shared: StoredResponse, by answer: Response, logger: Logger) async throws -> StoredResponse {
        let bytes = try await answer.body.collected()
        guard answer.status == .ok, let etag = answer.headers[.splicedETag], let header = answer.headers[.splice],
            let splice = PageSplice(header: header, bytes: bytes), let body = splice.applied(to: shared.body)
        else {
            logger.error("Catalog's splice does not fit the page held", metadata: ["splice": "\(answer.headers[.splice] ?? "none")"])
            throw Problem(status: 502, slug: "bad-splice", title: "Bad gateway", detail: "Catalog's answer did not fit the page held")
        }
        var page = personal(shared, etag: etag, cacheControl: answer.headers[.cacheControl] ?? PersonalPage.cacheControl)
        page.body = body
        page.headers[.contentLength] = String(body.readableBytes)
        page.bookIDs = []
        page.sharedWithPatrons = false
        return page
    }

    /// The shared page as the patron's: their ETag, private, and no `Age` (it was vouched for just now).
    private func personal(_ shared: StoredResponse, etag: String, cacheControl: String) -> StoredResponse {
        var page = shared
        page.headers[.eTag] = etag
        page.headers[.cacheControl] = cacheControl
        page.headers[.age] = nil
        return page
    }
}
