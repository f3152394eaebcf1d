import Foundation
import HTTPTypes
import Hummingbird
import ServiceLifecycle
import ServiceSupport
import Shared
import Synchronization

/// `GET /me/events`, a signed-in patron's live events (server-sent events), streamed through from patron: on a client
/// of its own (`HTTPClient.events`), so that open streams never hold the connections pages need, which closes a stream
/// patron stopped feeding for 45 s (patron sends a comment every 15 s); at most
/// `EVENT_STREAMS_PER_PATRON` open at once per patron on this gateway (429 beyond) and `EVENT_STREAMS_MAX` in all (503
/// beyond), matched on the path as routes match it, whatever the method; ended at the gateway's graceful shutdown (the
/// client reconnects to another gateway with `Last-Event-ID`). Anything else goes on down the chain.
struct EventStreamMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    let sender: UpstreamSender
    let streams: ResponseSlots

    /// Writes what patron sends into the stream the client's response reads.
    struct Relayed: ResponseBodyWriter {
        let continuation: AsyncThrowingStream<ByteBuffer, any Error>.Continuation

        mutating func write(_ buffer: ByteBuffer) async throws { continuation.yield(buffer) }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws { continuation.finish() }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Every method (patron answers what it does not serve), on the path as routes match it (`PathShape`).
        guard PathShape.matchable(request.uri.path) == PublicRoute.events.path, let call = context.upstreamCall,
            let patronID = call.patronID
        else { return try await next(request, context) }
        let slot = try streams.claimOrRefuse(patronID)
        var streamed = try await sender.send(request, call, logger: context.logger)
        let body = streamed.body
        streamed.body = ResponseBody { writer in
            // Held at least until the stream ends; the slot goes back when nothing holds it.
            defer { withExtendedLifetime(slot) {} }
            // Patron's answer is read by a task of its own, so that graceful shutdown can end the stream between two
            // events (the client then resumes elsewhere with `Last-Event-ID`).
            let (parts, relay) = AsyncThrowingStream.makeStream(of: ByteBuffer.self)
            let reading = Task {
                do {
                    try await body.write(Relayed(continuation: relay))
                } catch {
                    relay.finish(throwing: error)
                }
            }
            defer { reading.cancel() }
            try await withGracefulShutdownHandler {
                for try await part in parts { try await writer.write(part) }
            } onGracefulShutdown: {
                relay.finish()
            }
            try await writer.finish(nil)
        }
        return streamed
    }
}
