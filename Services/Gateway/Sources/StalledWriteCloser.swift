import NIOCore

/// Closes a connection whose writes have not completed for the `IdleStateHandler`'s write timeout
/// (`STREAM_IDLE_TIMEOUT`): a client that stops reading a streamed response (a download, a publication resource)
/// would otherwise hold the gateway's connection to catalog, and its buffers, for as long as it likes. Closing the
/// connection cancels the request, which cancels the upstream request too. An idle keep-alive connection is
/// closed after the same time, as servers do.
final class StalledWriteCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case IdleStateHandler.IdleStateEvent.write = event {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
