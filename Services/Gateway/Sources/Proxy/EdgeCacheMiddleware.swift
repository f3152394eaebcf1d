import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// Catalog's anonymous public answers from the edge cache while they may be (`EdgeCachePolicy`); concurrent misses of
/// one key fetch it once, and a stale answer is fetched again in the background while it is given. An operator's change
/// through catalog (a successful `/admin` request that is not a read) empties the cache; a patron's change of one of
/// their lists forgets only that list's feed, so that no patron can empty the cache everyone's pages come from.
struct EdgeCacheMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    let catalog: Upstream
    let edgeCache: ResponseCache
    /// What fetches a stale answer again in the background, as `ProxyMiddleware` would have (no middleware between
    /// them acts on an anonymous page; a book's file, which `HeldFilesMiddleware` serves, is fetched inline).
    let sender: UpstreamSender

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard var call = context.upstreamCall, call.upstream === catalog else { return try await next(request, context) }
        if call.patronID == nil, !call.carriesOwnCredentials, edgeCache.isEnabled, let key = EdgeCachePolicy.key(for: request) {
            call.cacheKey = key
            var context = context
            context.upstreamCall = call
            let (sender, logger) = (self.sender, context.logger)
            let refresh: (@Sendable () async throws -> Void)? =
                PublicService.isBookFile(request.uri.path)
                ? nil
                : { @Sendable [call] in try await sender.refreshStale(request, call, logger: logger) }
            return try await edgeCache.respond(to: request, key: key, refresh: refresh) { try await next(request, context) }
        }
        let response = try await next(request, context)
        if ![.get, .head, .options].contains(request.method), response.status.code < 400 {
            if call.carriesOwnCredentials {
                edgeCache.clear()
            } else if let list = Self.changedList(request.uri.path) {
                edgeCache.removeAll(withKeyPrefix: PublicRoute.listFeed(.value(list)).path)
            }
        }
        return response
    }

    /// The list a patron's change under `/me/lists/{id}` touches: its public feed is all such a change can alter of what
    /// anonymous visitors are shown.
    static func changedList(_ path: String) -> UUID? {
        let prefix = PublicRoute.lists(.patron).path + "/"
        guard path.hasPrefix(prefix) else { return nil }
        return path.dropFirst(prefix.count).split(separator: "/").first.flatMap { UUID(uuidString: String($0)) }
    }
}
