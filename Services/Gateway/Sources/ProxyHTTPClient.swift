import AsyncHTTPClient

extension HTTPClient {
    /// The gateway's client to its upstreams. Unlike `HTTPClient.shared` (browser-like), it passes bodies through
    /// untouched (no decompression), hands redirects back to the client instead of following them, fails fast
    /// on a refused connection, and keeps enough connections per replica for the gateway's concurrency.
    static let proxy: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        configuration.timeout = .init(connect: .seconds(2))
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        // A refused connection is an answer: the gateway marks the replica down and tries the next one itself.
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()
}
