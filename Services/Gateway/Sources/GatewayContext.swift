import Hummingbird
import NIOCore

/// The gateway's request context: Hummingbird's basics plus the client's socket address.
struct GatewayContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
