import Foundation
import Synchronization

/// The streams open on this replica, by patron: a numbering pass's notification wakes the patron's streams, which
/// then read their news from PostgreSQL. Each stream also hears a tick every `heartbeat` (it sends a comment, so that
/// proxies keep the connection, and reads anyway while the replica is not listening) and the end of its life.
final class PatronEventHub: Sendable {
    enum Signal: Sendable {
        case news
        case tick
        case end
    }

    private struct Subscriber {
        let patronID: UUID
        let continuation: AsyncStream<Signal>.Continuation
    }

    private let subscribers = Mutex<[UUID: Subscriber]>([:])
    private let isListening = Mutex(false)

    /// Whether the replica hears every numbering pass now (`PatronEventListener`).
    var listening: Bool { isListening.withLock { $0 } }

    /// A stream's signals; `end()` on the returned subscription when the stream ends.
    func subscribe(patronID: UUID) -> (signals: AsyncStream<Signal>, subscription: UUID) {
        let (signals, continuation) = AsyncStream.makeStream(of: Signal.self, bufferingPolicy: .bufferingNewest(2))
        let id = UUID()
        subscribers.withLock { $0[id] = Subscriber(patronID: patronID, continuation: continuation) }
        return (signals, id)
    }

    func end(_ subscription: UUID) {
        subscribers.withLock { $0.removeValue(forKey: subscription) }?.continuation.finish()
    }

    func send(_ signal: Signal, to subscription: UUID) {
        _ = subscribers.withLock { $0[subscription] }?.continuation.yield(signal)
    }

    /// News for one patron.
    func wake(patronID: UUID) {
        for subscriber in subscribers.withLock({ Array($0.values) }) where subscriber.patronID == patronID {
            subscriber.continuation.yield(.news)
        }
    }

    /// News for everyone: the replica starts listening again and may have missed some.
    func wakeAll() {
        for subscriber in subscribers.withLock({ Array($0.values) }) { subscriber.continuation.yield(.news) }
    }

    func setListening(_ value: Bool) {
        isListening.withLock { $0 = value }
        if value { wakeAll() }
    }

    /// How many streams are open on this replica.
    var count: Int { subscribers.withLock { $0.count } }
}
