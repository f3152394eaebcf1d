import Hummingbird
import Shared

/// Refuses (401) every request that does not carry the service token. Mount it on `/internal` routes.
public struct ServiceTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: ServiceToken

    public init(token: ServiceToken) { self.token = token }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard token.matches(request.headers[.serviceToken]) else {
            throw Problem(status: 401, slug: "service-token-required", title: "Unauthorized", detail: "Internal routes need the service token")
        }
        return try await next(request, context)
    }
}
