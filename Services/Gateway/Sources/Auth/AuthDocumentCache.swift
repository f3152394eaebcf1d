import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Shared
import Synchronization

/// The 401 answer of the gateway: `WWW-Authenticate: Basic`, a `Link` to the auth document and the document
/// itself as the body (fetched from patron and kept for a minute).
final class AuthDocumentCache: Sendable {
    let patron: Upstream
    let httpClient: HTTPClient
    let publicURL: String
    private let cached = Mutex<(ByteBuffer, Date)?>(nil)

    init(patron: Upstream, httpClient: HTTPClient, publicURL: String) {
        self.patron = patron
        self.httpClient = httpClient
        self.publicURL = publicURL
    }

    func unauthorized(logger: Logger) async -> Response {
        var headers: HTTPFields = [
            .wwwAuthenticate: "Basic realm=\"Library card\"",
            HTTPField.Name("Link")!: "<\(PublicRoute.authDocument.url(publicURL))>; rel=\"http://opds-spec.org/auth/document\"",
        ]
        if let body = await document(logger: logger) {
            headers[.contentType] = MediaType.authentication
            return Response(status: .unauthorized, headers: headers, body: .init(byteBuffer: body))
        }
        return Problem.unauthorized("Sign in with your library card and PIN").response(headers: headers)
    }

    private func document(logger: Logger) async -> ByteBuffer? {
        if let (body, until) = cached.withLock({ $0 }), until > Date() { return body }
        for replica in patron.candidates() {
            guard
                let response = try? await httpClient.execute(
                    HTTPClientRequest(url: replica + PublicRoute.authDocument.path),
                    timeout: .seconds(2),
                    logger: logger
                ),
                response.status == .ok, let body = try? await response.body.collect(upTo: 1 << 20)
            else { continue }
            cached.withLock { $0 = (body, Date().addingTimeInterval(60)) }
            return body
        }
        return nil
    }
}
