import Hummingbird
import NIOCore

/// The gateway's request context: Hummingbird's basics, the client's socket address, and what the proxy's middlewares
/// learned of a request on its way to catalog or patron (`UpstreamCall`; nil for the gateway's own routes).
struct GatewayContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    var upstreamCall: UpstreamCall?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
