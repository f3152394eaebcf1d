import Hummingbird
import ServiceSupport
import Shared

/// The last of the proxy's middlewares: a public request none of the others answered goes to its service as the
/// others left it (`UpstreamCall`, `UpstreamSender`). The chain, in order (`Application+build.swift`):
/// `AuthenticationMiddleware`, `EdgeCacheMiddleware` (an anonymous page's hit ends there), `ShelfVersionMiddleware`,
/// `HeldFilesMiddleware`,
/// `PersonalPagesMiddleware`, `EventStreamMiddleware`, then this.
struct ProxyMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    let sender: UpstreamSender

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let call = context.upstreamCall else { return try await next(request, context) }
        return try await sender.send(request, call, logger: context.logger)
    }
}
