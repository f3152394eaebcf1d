import Hummingbird
import ServiceSupport
import Shared

/// The last of the proxy's middlewares: a public request none of the others answered goes to its service as the
/// others left it (`UpstreamCall`, `UpstreamSender`). The chain, in order (`Application+build.swift`):
/// `AuthenticationMiddleware`, `EdgeCacheMiddleware` (an anonymous page's hit ends there), `ShelfVersionMiddleware`,
/// `PersonalPagesMiddleware` (a signed-in page's ends there), `DownloadsMiddleware`, `HeldFilesMiddleware`,
/// `EventStreamMiddleware`, then this.
struct ProxyMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    let sender: UpstreamSender
    /// The sender of books' files, on their own client (`DownloadsMiddleware`).
    let downloads: UpstreamSender

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let call = context.upstreamCall else { return try await next(request, context) }
        let sender = PublicService.isBookContent(request.uri.path) ? downloads : sender
        return try await sender.send(request, call, logger: context.logger)
    }
}
