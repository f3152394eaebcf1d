import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// One TCP (or TLS) connection to the ILS's SIP2 port: a message out, its reply (up to the carriage return) back, one
/// exchange at a time, each within a timeout; a connection that timed out or broke is closed and not used again.
final class SIP2Connection: Sendable {
    enum Failure: Error, CustomStringConvertible {
        case timedOut
        case closed
        case tooLong
        case busy

        var description: String {
            switch self {
            case .timedOut: "the ILS did not answer in time"
            case .closed: "the ILS closed the connection"
            case .tooLong: "the ILS's reply is longer than 64 KB"
            case .busy: "an exchange is already under way on this connection"
            }
        }
    }

    let channel: any Channel

    private init(channel: any Channel) { self.channel = channel }

    static func open(host: String, port: Int, tls: NIOSSLContext?, timeout: TimeAmount) async throws -> SIP2Connection {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        // An address is checked against the certificate's IP names; only a host name goes in SNI.
                        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: isAddress ? nil : host))
                    }
                    try channel.pipeline.syncOperations.addHandler(ReplyHandler())
                }
            }
            .connect(host: host, port: port).get()
        return SIP2Connection(channel: channel)
    }

    var isActive: Bool { channel.isActive }

    /// Sends `message` and returns the reply's bytes (without its carriage return).
    func exchange(_ message: [UInt8], timeout: TimeAmount) async throws -> [UInt8] {
        let channel = self.channel
        return try await channel.eventLoop.flatSubmit { () -> EventLoopFuture<[UInt8]> in
            do {
                let handler = try channel.pipeline.syncOperations.handler(type: ReplyHandler.self)
                guard channel.isActive else { throw Failure.closed }
                let promise = channel.eventLoop.makePromise(of: [UInt8].self)
                try handler.expect(promise)
                let deadline = channel.eventLoop.scheduleTask(in: timeout) {
                    handler.fail(Failure.timedOut)
                    channel.close(promise: nil)
                }
                promise.futureResult.whenComplete { _ in deadline.cancel() }
                channel.writeAndFlush(ByteBuffer(bytes: message), promise: nil)
                return promise.futureResult
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }.get()
    }

    func close() { channel.close(promise: nil) }

    /// Collects a reply up to its carriage return for the one exchange waiting. Used on the channel's event loop only.
    private final class ReplyHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        private var received: [UInt8] = []
        private var waiting: EventLoopPromise<[UInt8]>?

        func expect(_ promise: EventLoopPromise<[UInt8]>) throws {
            guard waiting == nil else { throw Failure.busy }
            received.removeAll()
            waiting = promise
        }

        func fail(_ error: any Error) {
            let promise = waiting
            waiting = nil
            promise?.fail(error)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            received += buffer.readBytes(length: buffer.readableBytes) ?? []
            if let end = received.firstIndex(of: UInt8(ascii: "\r")) {
                let reply = Array(received[..<end])
                received.removeAll()
                let promise = waiting
                waiting = nil
                promise?.succeed(reply)
            } else if received.count > 64 * 1024 {
                fail(Failure.tooLong)
                context.close(promise: nil)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            fail(Failure.closed)
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            fail(error)
            context.close(promise: nil)
        }
    }
}
