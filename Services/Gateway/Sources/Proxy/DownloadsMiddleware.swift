import Hummingbird
import ServiceSupport
import Shared

/// A book's file (`/books/{id}/fulfill`) or a resource of its publication (an audiobook's track): a download may take minutes to a slow reader, so at most `DOWNLOADS_PER_PATRON`
/// at once per patron (429) and `DOWNLOADS_MAX` on this gateway (503), each holding its place until its last byte is
/// written or the client goes. They travel on a client of their own (`HTTPClient.downloads`, `ProxyMiddleware`), so that
/// slow downloads never hold the connections pages need.
struct DownloadsMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    let catalog: Upstream
    let downloads: ResponseSlots

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let call = context.upstreamCall, call.upstream === catalog, PublicService.isBookContent(request.uri.path) else {
            return try await next(request, context)
        }
        let slot = try downloads.claimOrRefuse(call.patronID)
        return try await next(request, context).holding(slot)
    }
}
