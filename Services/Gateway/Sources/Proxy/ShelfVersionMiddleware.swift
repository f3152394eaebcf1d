import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// Read-your-writes across catalog's replicas: the newest shelf version patron reported for a patron after a change
/// through this gateway (`X-Shelf-Version`, taken off the answer) is passed on to catalog with that patron's requests
/// for a while, since catalog's replicas learn of new versions a moment later.
struct ShelfVersionMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    let patron: Upstream
    let catalog: Upstream
    let versions = ExpiringAnswers<UUID, String>(lifetime: 60)

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard var call = context.upstreamCall else { return try await next(request, context) }
        guard let patronID = call.patronID else {
            // Only a patron has a shelf; the header, internal, never reaches a client all the same.
            var response = try await next(request, context)
            response.headers[.shelfVersion] = nil
            return response
        }
        var response: Response
        if call.upstream === catalog, let version = versions[patronID] {
            call.shelfVersion = version
            var context = context
            context.upstreamCall = call
            response = try await next(request, context)
        } else {
            response = try await next(request, context)
        }
        if let version = response.headers[.shelfVersion] {
            response.headers[.shelfVersion] = nil
            if call.upstream === patron { versions.remember(version, for: patronID) }
        }
        return response
    }
}
