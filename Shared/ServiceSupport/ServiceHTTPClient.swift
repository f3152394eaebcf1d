import AsyncHTTPClient

extension HTTPClient {
    /// The client for calls between Bookmobile services (the gateway's proxying and internal calls). Unlike
    /// `HTTPClient.shared` (browser-like), it passes bodies through untouched (no decompression), hands redirects
    /// back instead of following them, fails fast on a refused connection (the caller tries another replica),
    /// and keeps enough connections per replica for the gateway's concurrency.
    public static let service: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        configuration.timeout = .init(connect: .seconds(2))
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        // A refused connection is an answer: callers mark the replica down and try the next one themselves.
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()
}
