import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// The first of the proxy's middlewares: picks the service a public path goes to (`PublicService`; `/internal/*` is
/// never reachable, other paths are the gateway's own routes), reads the client's address (`TrustedProxies`) and
/// authenticates the caller once (`PatronAuthenticator`), unless the request's credentials are the service's to read.
/// A path spelt oddly (`PathShape`) is refused before anything matches it.
/// A patron answer that says a patron's credentials changed ends the gateway's verdicts on them at once.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    let catalog: Upstream
    let patron: Upstream
    let authenticator: PatronAuthenticator
    let authDocument: AuthDocumentCache
    let trustedProxies: TrustedProxies

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        // Another spelling of a path (`/me//events`, `/me/./events`) could pass a middleware that matches the path as
        // written while the service's router still reaches the route: refused before any of them looks (`PathShape`).
        guard PathShape.isServed(path) else { throw Problem.notFound("No resource at \(path): paths have no empty or dot segments") }
        if path == "/internal" || path.hasPrefix("/internal/") { throw Problem.notFound("No resource at \(path)") }
        let upstream: Upstream
        switch PublicService.serving(path) {
        case .catalog: upstream = catalog
        case .patron: upstream = patron
        case nil: return try await next(request, context)
        }
        let clientAddress = trustedProxies.clientAddress(peer: context.remoteAddress?.ipAddress, headers: request.headers)
        var patronID: UUID?
        var request = request
        let carriesOwnCredentials = PublicService.carriesOwnCredentials(path)
        if !carriesOwnCredentials {
            switch await authenticator.authenticate(
                authorization: request.headers[.authorization],
                clientAddress: clientAddress,
                logger: context.logger
            )
            {
            case .anonymous: break
            case .patron(let id, let limit):
                patronID = id
                // A teen's or a child's card browses catalog as `audience=`: catalog's pages, and the edge cache's
                // keys, are then theirs (`AudienceLimit`).
                if let limit, upstream === catalog { request = AudienceLimit.limiting(request, to: limit) }
            case .refused(let problem):
                return problem.status == 401 ? await authDocument.unauthorized(logger: context.logger) : problem.response()
            }
        }
        var context = context
        context.upstreamCall = UpstreamCall(
            upstream: upstream,
            patronID: patronID,
            clientAddress: clientAddress,
            carriesOwnCredentials: carriesOwnCredentials
        )
        var response = try await next(request, context)
        if let changed = response.headers[.credentialsChanged] {
            response.headers[.credentialsChanged] = nil
            if upstream === patron, let owner = UUID(uuidString: changed) { authenticator.forget(patron: owner) }
        }
        return response
    }
}
