import Foundation

/// A public request on its way to catalog or patron, as the proxy's middlewares fill it in: set by
/// `AuthenticationMiddleware`, read by the others and sent by `ProxyMiddleware` (through `UpstreamSender`).
struct UpstreamCall: Sendable {
    let upstream: Upstream
    /// The signed-in patron, nil for an anonymous caller.
    let patronID: UUID?
    /// The client's address as the trusted proxies say (`TrustedProxies`).
    let clientAddress: String?
    /// The request's `Authorization` is the service's to read (token requests, sign-up): passed on, not checked here.
    let carriesOwnCredentials: Bool
    /// The newest shelf version patron reported for the patron through this gateway (`ShelfVersionMiddleware`).
    var shelfVersion: String? = nil
    /// The edge cache's key for the answer, which is then kept there (`EdgeCacheMiddleware`).
    var cacheKey: String? = nil
}
