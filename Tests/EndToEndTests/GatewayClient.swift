import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// HTTP calls to the gateway, as an app makes them.
struct GatewayClient: Sendable {
    let base: String

    enum Credentials: Sendable {
        case bearer(String)
        case basic(String, String)
    }

    struct Reply: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: Data

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
        var isProblem: Bool { headers.first(name: "content-type")?.hasPrefix("application/problem+json") == true }
    }

    /// One request; `path` may also be an absolute URL (links in feeds are absolute). `HTTPClient.shared` asks for gzip
    /// and inflates the answer, as browsers do; a client made without decompression sends only what it is given.
    func call(
        _ method: HTTPMethod,
        _ path: String,
        as credentials: Credentials? = nil,
        json: String? = nil,
        body: Data? = nil,
        headers extra: [(String, String)] = [],
        through client: HTTPClient = .shared
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: path.hasPrefix("http") ? path : base + path)
        request.method = method
        switch credentials {
        case .bearer(let token): request.headers.add(name: "Authorization", value: "Bearer \(token)")
        case .basic(let user, let password):
            request.headers.add(name: "Authorization", value: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
        case nil: break
        }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        } else if let body {
            request.body = .bytes(ByteBuffer(data: body))
        }
        for (name, value) in extra { request.headers.replaceOrAdd(name: name, value: value) }
        let response = try await client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: bytes))
    }
}

/// `body` with an HTTP client that neither asks for gzip nor inflates answers (`GatewayClient.call(through:)`), with up
/// to `connectionsPerHost` connections to a server at once, shut down after it whatever happens.
func withPlainClient<T>(connectionsPerHost: Int = 8, _ body: (HTTPClient) async throws -> T) async throws -> T {
    var configuration = HTTPClient.Configuration(decompression: .disabled)
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerHost)
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    do {
        let result = try await body(client)
        try await client.shutdown()
        return result
    } catch {
        try? await client.shutdown()
        throw error
    }
}
