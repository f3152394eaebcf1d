import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle
import ServiceSupport
import Shared

/// `GET /me/events`: the patron's live events as server-sent events (`text/event-stream`). Each event's `id` is its
/// number, its `event` its kind, its `data` the `PatronEvent` as JSON. A new stream starts with a `ready` event whose id
/// is where it starts; a stream resumed with `Last-Event-ID` first sends every event after that number (kept a day).
/// A comment every `heartbeat` keeps proxies from closing it; it ends after `lifetime` (the client reconnects, and its
/// token is checked again) or at the replica's graceful shutdown.
struct EventStreamController: Sendable {
    let events: PatronEventPostgresRepository
    let hub: PatronEventHub
    var heartbeat: Duration = .seconds(15)
    var lifetime: Duration = .seconds(600)

    static let lastEventID = HTTPField.Name("Last-Event-ID")!

    func add(to me: some RouterMethods<SignedInRequestContext>) {
        me.get(.events, use: stream)
    }

    func stream(request: Request, context: SignedInRequestContext) async throws -> Response {
        let patronID = context.patronID
        let logger = context.logger
        let resumed: Bool
        let start: Int64
        if let header = request.headers[Self.lastEventID], !header.isEmpty {
            guard let seq = Int64(header), seq >= 0 else {
                throw Problem.badRequest("Last-Event-ID must be the id of an event this stream sent (a whole number)")
            }
            (resumed, start) = (true, seq)
        } else {
            (resumed, start) = (false, try await events.newest(patronID: patronID, logger: logger))
        }
        let (events, hub, heartbeat, lifetime) = (self.events, self.hub, self.heartbeat, self.lifetime)
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store", HTTPField.Name("X-Accel-Buffering")!: "no"],
            body: ResponseBody { writer in
                let (signals, subscription) = hub.subscribe(patronID: patronID)
                // Read first: a resumed stream's missed events, and anything numbered while it opened.
                hub.send(.news, to: subscription)
                let ticker = Task {
                    let ends = ContinuousClock.now + lifetime
                    while !Task.isCancelled, ContinuousClock.now < ends {
                        try? await Task.sleep(for: heartbeat)
                        hub.send(.tick, to: subscription)
                    }
                    hub.send(.end, to: subscription)
                }
                defer {
                    ticker.cancel()
                    hub.end(subscription)
                }
                var cursor = start
                var opening = "retry: 2000\n\n"
                if !resumed { opening += "id: \(start)\nevent: ready\ndata: {}\n\n" }
                try await writer.write(ByteBuffer(string: opening))
                try await withGracefulShutdownHandler {
                    for await signal in signals {
                        if signal == .end { break }
                        // Without a listener, news comes unannounced: read at every tick.
                        if signal == .news || !hub.listening {
                            let news = try await events.events(patronID: patronID, after: cursor, logger: logger)
                            if let last = news.last {
                                try await writer.write(ByteBuffer(string: news.map(Self.message).joined()))
                                cursor = last.seq
                            }
                        }
                        if signal == .tick { try await writer.write(ByteBuffer(string: ": keep-alive\n\n")) }
                    }
                } onGracefulShutdown: {
                    hub.send(.end, to: subscription)
                }
                try await writer.finish(nil)
            }
        )
    }

    /// One event in the stream's format.
    static func message(_ event: PatronEvent) -> String {
        let data = (try? WireFormat.encode(event)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "id: \(event.seq)\nevent: \(event.kind)\ndata: \(data)\n\n"
    }
}
