import AsyncHTTPClient
import NIOCore

extension HTTPClient {
    /// Seconds to wait for a connection to another service: `UPSTREAM_CONNECT_TIMEOUT` (2 s; read once, as the client
    /// is the process's; `runUntilTerminated` refuses a malformed one at start). Short, so that a replica that is away
    /// is skipped soon; the test suite, whose hundreds of apps share two event loops, sets it longer.
    public static func connectTimeout(_ config: ServiceConfig) throws -> Double {
        let seconds = try config.duration("UPSTREAM_CONNECT_TIMEOUT", default: defaultConnectTimeout)
        guard seconds > 0 else { throw ServiceConfig.Invalid(description: "UPSTREAM_CONNECT_TIMEOUT must be more than 0") }
        return seconds
    }

    /// `UPSTREAM_CONNECT_TIMEOUT` when unset.
    static let defaultConnectTimeout = 2.0

    /// The client for calls between Bookmobile services (the gateway's proxying and internal calls). Unlike
    /// `HTTPClient.shared` (browser-like), it passes bodies through untouched (no decompression), hands redirects
    /// back instead of following them, fails fast on a refused connection (the caller tries another replica),
    /// and keeps enough connections per replica for the gateway's concurrency.
    public static let service: HTTPClient = serviceClient(connectionsPerHost: 64)

    /// The gateway's client for first Basic sign-ins, which wait in patron's bcrypt queue for up to
    /// `BCRYPT_QUEUE_SECONDS`: a pool of its own, so that a crowd of them never holds the connections that verified
    /// patrons' cheap checks and pages need.
    public static let signIn: HTTPClient = serviceClient(connectionsPerHost: 1_024)

    /// The gateway's client for patrons' live event streams, each open for minutes: a pool of its own with no practical
    /// bound, so that they never hold the connections pages need; a stream patron sends nothing on for 45 s (it sends a
    /// comment every 15 s) is closed.
    public static let events: HTTPClient = serviceClient(connectionsPerHost: 100_000, readTimeout: .seconds(45))

    /// The gateway's client for books' files, which a slow reader may take minutes to download: a pool of its own, so
    /// that downloads never hold the connections pages need (the gateway bounds them: `DOWNLOADS_MAX`).
    public static let downloads: HTTPClient = serviceClient(connectionsPerHost: 10_000)

    private static func serviceClient(connectionsPerHost: Int, readTimeout: TimeAmount? = nil) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        configuration.timeout = .init(
            connect: .milliseconds(Int64(((try? connectTimeout(ServiceConfig())) ?? defaultConnectTimeout) * 1000)),
            read: readTimeout
        )
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerHost)
        // A refused connection is an answer: callers mark the replica down and try the next one themselves.
        configuration.connectionPool.retryConnectionEstablishment = false
        // No spans: no tracer is bootstrapped, and the default (a no-op tracer) still built every request's attributes
        // from its URL, 2.6 % of the gateway's profile proxying a search page (docs/PERFORMANCE.md, session 27).
        configuration.tracing.tracer = nil
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }
}
