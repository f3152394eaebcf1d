import Hummingbird
import Shared

/// Lets a request through only with one of the operators' admin tokens (`Authorization: Bearer <token>`), and names
/// its operator for what the request does (`AdminCaller.name`).
public struct AdminTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let tokens: AdminTokens

    public init(tokens: AdminTokens) { self.tokens = tokens }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let name = tokens.name(of: BasicAuthorization.bearer(request.headers[.authorization])) else {
            throw Problem.unauthorized("An admin token is required (Authorization: Bearer <token from ADMIN_TOKEN or ADMIN_TOKENS>)")
        }
        return try await AdminCaller.$name.withValue(name) { try await next(request, context) }
    }
}
