import Hummingbird

/// Answers `AuthenticationRequired` with 401, `WWW-Authenticate: Basic` and the auth document as the body.
struct AuthenticationRequiredMiddleware<Context: RequestContext>: RouterMiddleware {
    let document: AuthDocument

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch is AuthenticationRequired {
            return try document.response(status: .unauthorized)
        }
    }
}
