import Hummingbird
import Shared

/// Refuses (401) every request that does not carry the admin token as `Authorization: Bearer`. Mount it on the
/// operators' `/admin` routes.
public struct AdminTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: ServiceToken

    public init(token: ServiceToken) { self.token = token }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard token.matches(BasicAuthorization.bearer(request.headers[.authorization])) else {
            throw Problem.unauthorized("The admin token is required (Authorization: Bearer <ADMIN_TOKEN>)")
        }
        return try await next(request, context)
    }
}
