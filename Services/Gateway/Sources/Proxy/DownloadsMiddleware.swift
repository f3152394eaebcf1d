import Hummingbird
import ServiceSupport
import Shared

/// A book's file (`/books/{id}/fulfill`): a download may take minutes to a slow reader, so at most `DOWNLOADS_PER_PATRON`
/// at once per patron (429) and `DOWNLOADS_MAX` on this gateway (503), each holding its place until its last byte is
/// written or the client goes. They travel on a client of their own (`HTTPClient.downloads`, `ProxyMiddleware`), so that
/// slow downloads never hold the connections pages need.
struct DownloadsMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    let catalog: Upstream
    let downloads: ResponseSlots

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let call = context.upstreamCall, call.upstream === catalog, PublicService.isBookFile(request.uri.path) else {
            return try await next(request, context)
        }
        switch downloads.claim(call.patronID) {
        case .success(let slot):
            return try await next(request, context).holding(slot)
        case .failure(.ownerFull):
            throw Problem(
                status: 429,
                slug: "too-many-downloads",
                title: "Too many downloads",
                detail: "At most \(downloads.perOwner) downloads at once for one account; let one finish first",
                retryAfter: 10
            )
        case .failure(.gatewayFull):
            throw Problem(
                status: 503,
                slug: "downloads-full",
                title: "No room for another download",
                detail: "This gateway is sending \(downloads.total) files; try again soon",
                retryAfter: 10
            )
        }
    }
}
