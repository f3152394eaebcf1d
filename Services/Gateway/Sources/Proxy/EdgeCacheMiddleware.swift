import Hummingbird
import ServiceSupport
import Shared

/// Catalog's anonymous public answers from the edge cache while they may be (`EdgeCachePolicy`); concurrent misses of
/// one key fetch it once. A change through catalog (a successful request that is not a read) empties the cache.
struct EdgeCacheMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    let catalog: Upstream
    let edgeCache: ResponseCache

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard var call = context.upstreamCall, call.upstream === catalog else { return try await next(request, context) }
        if call.patronID == nil, !call.carriesOwnCredentials, edgeCache.isEnabled, let key = EdgeCachePolicy.key(for: request) {
            call.cacheKey = key
            var context = context
            context.upstreamCall = call
            return try await edgeCache.respond(to: request, key: key) { try await next(request, context) }
        }
        let response = try await next(request, context)
        if ![.get, .head, .options].contains(request.method), response.status.code < 400 { edgeCache.clear() }
        return response
    }
}
