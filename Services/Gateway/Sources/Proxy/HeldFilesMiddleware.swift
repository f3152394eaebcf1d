import Hummingbird
import ServiceSupport
import Shared

/// A book's EPUB (`/books/{id}/fulfill`) from the copy this gateway holds, once catalog allowed the download (304 to
/// the copy's ETag): catalog still decides every download, and the file does not cross the hop again. Otherwise
/// catalog's own answer: the file, sent on as it arrives and kept for the next download, or a refusal. Concurrent
/// first downloads of one file wait (up to `HELD_FILE_WAIT`, `FirstFetches`) for that one copy. Range and conditional requests go
/// to catalog as they are.
struct HeldFilesMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    let catalog: Upstream
    let sender: UpstreamSender
    /// Copies of the EPUBs patrons downloaded, by path.
    let heldFiles: ResponseCache
    let firstFetches: FirstFetches

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let call = context.upstreamCall, call.upstream === catalog, heldFiles.isEnabled, request.method == .get,
            PublicService.isBookFile(request.uri.path), request.headers[.range] == nil, request.headers[.ifNoneMatch] == nil
        else { return try await next(request, context) }
        let key = request.uri.path
        var first: FirstFetch?
        if heldFiles.get(key) == nil && heldFiles.stale(key) == nil {
            first = firstFetches.begin(key)
            if first == nil { await firstFetches.wait(for: key) }
        }
        do {
            let response = try await sender.throughHeldCopy(
                request,
                call,
                key: key,
                in: heldFiles,
                maxBytes: EdgeCachePolicy.maxFileBytes,
                answerFresh: false,
                first: first,
                logger: context.logger
            )
            if first?.isStreaming == false { first?.end() }
            return response
        } catch {
            first?.end()
            throw error
        }
    }
}
