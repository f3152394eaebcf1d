import HTTPTypes
import Hummingbird
import ServiceSupport
import Shared

/// `GET /` (the web app), `GET /admin/` (the operator console) and their assets under `/web/`.
struct WebAppRoutes: Sendable {
    let web: WebAssets

    func add(to router: Router<GatewayContext>) {
        for page in WebAssets.pages.keys {
            router.get(RouterPath(page)) { request, _ in try serve(page, request: request) }
            router.head(RouterPath(page)) { request, _ in try serve(page, request: request) }
        }
        router.get("/web/**") { request, _ in try serve(request.uri.path, request: request) }
        router.head("/web/**") { request, _ in try serve(request.uri.path, request: request) }
    }

    func serve(_ path: String, request: Request) throws -> Response {
        guard let asset = web.assets[path] else { throw Problem.notFound("No resource at \(path)") }
        var headers: HTTPFields = [
            .contentType: asset.contentType, .eTag: asset.etag, .vary: "Accept-Encoding", .xContentTypeOptions: "nosniff",
            .cacheControl: asset.immutable ? "public, max-age=31536000, immutable" : "no-cache",
        ]
        if path == WebAssets.serviceWorker {
            // Served under /web/ but controls the whole app (offline.js registers it with the scope `/`).
            headers[HTTPField.Name("Service-Worker-Allowed")!] = "/"
        }
        if WebAssets.pages[path] != nil {
            headers[.contentSecurityPolicy] = web.contentSecurityPolicy
            headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
            headers[HTTPField.Name("Permissions-Policy")!] = "camera=(), microphone=(), geolocation=()"
        }
        if let match = request.headers[.ifNoneMatch],
            match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == asset.etag })
        {
            return Response(status: .notModified, headers: headers)
        }
        if let gzipped = asset.gzipped, Gzip.accepted(by: request.headers[.acceptEncoding]) {
            headers[.contentEncoding] = "gzip"
            headers[.contentLength] = "\(gzipped.readableBytes)"
            return Response(status: .ok, headers: headers, body: request.method == .head ? .init() : .init(byteBuffer: gzipped))
        }
        headers[.contentLength] = "\(asset.body.readableBytes)"
        return Response(status: .ok, headers: headers, body: request.method == .head ? .init() : .init(byteBuffer: asset.body))
    }
}
