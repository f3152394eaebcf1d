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
/// `EVENT_STREAMS_PER_PATRON` open at once per patron on this gateway (429 beyond); ended at the gateway's graceful
/// shutdown (the client reconnects to another gateway with `Last-Event-ID`). Anything else goes on down the chain.
struct EventStreamMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    let sender: UpstreamSender
    let streams: OpenStreams

    /// The streams open per patron on this gateway.
    final class OpenStreams: Sendable {
        let limit: Int
        private let open = Mutex<[UUID: Int]>([:])

        init(limit: Int) { self.limit = limit }

        /// Counts one more stream of the patron's; false when they have `limit` open already.
        func claim(_ patronID: UUID) -> Bool {
            open.withLock { open in
                guard open[patronID, default: 0] < limit else { return false }
                open[patronID, default: 0] += 1
                return true
            }
        }

        func release(_ patronID: UUID) {
            open.withLock { open in
                let left = open[patronID, default: 1] - 1
                open[patronID] = left > 0 ? left : nil
            }
        }

        func count(of patronID: UUID) -> Int { open.withLock { $0[patronID, default: 0] } }
    }

    /// Writes what patron sends into the stream the client's response reads.
    struct Relayed: ResponseBodyWriter {
        let continuation: AsyncThrowingStream<ByteBuffer, any Error>.Continuation

        mutating func write(_ buffer: ByteBuffer) async throws { continuation.yield(buffer) }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws { continuation.finish() }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get, request.uri.path == PublicRoute.events.path, let call = context.upstreamCall,
            let patronID = call.patronID
        else { return try await next(request, context) }
        guard streams.claim(patronID) else {
            throw Problem(
                status: 429,
                slug: "too-many-streams",
                title: "Too many event streams",
                detail: "At most \(streams.limit) event streams may be open at once for one account; close one first",
                retryAfter: 30
            )
        }
        let response: Response
        do { response = try await sender.send(request, call, logger: context.logger) } catch {
            streams.release(patronID)
            throw error
        }
        var streamed = response
        let body = response.body
        streamed.body = ResponseBody { [streams] writer in
            defer { streams.release(patronID) }
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
