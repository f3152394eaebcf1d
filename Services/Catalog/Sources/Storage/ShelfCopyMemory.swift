import Foundation
import Shared
import Synchronization

/// Catalog's copies of patrons' shelves held in memory, so that a signed-in page costs no PostgreSQL round trip.
///
/// A copy is trusted only while this replica hears every new version as it is stored: `ShelfCopyListener` listens
/// on PostgreSQL's `shelf_copies` channel (every replica's `store` announces there) and hears its own heartbeat at
/// least every `heartbeatTimeout`. A copy older than a version announced, or than the version the gateway says the
/// patron has seen (`X-Internal-Shelf-Version`), is not trusted: the caller reads PostgreSQL. Copies read while not
/// listening are dropped when listening starts (announcements may have been missed meanwhile).
final class ShelfCopyMemory: Sendable {
    let limit: Int
    let heartbeatTimeout: TimeInterval

    private struct State {
        var copies: [UUID: ShelfCopy] = [:]
        /// Versions announced lately, kept a minute: a read that began before an announcement must not store the
        /// older copy it got.
        var announced: [UUID: (version: Int64, at: Date)] = [:]
        var listening = false
        var lastHeard = Date.distantPast
    }
    private let state = Mutex(State())

    init(limit: Int = 50_000, heartbeatTimeout: TimeInterval = 6) {
        self.limit = limit
        self.heartbeatTimeout = heartbeatTimeout
    }

    /// The copy held for the patron, and whether it may be used without asking PostgreSQL.
    func lookup(_ patronID: UUID, atLeast seen: Int64? = nil, now: Date = Date()) -> (copy: ShelfCopy?, trusted: Bool) {
        state.withLock { state in
            guard let copy = state.copies[patronID] else { return (nil, false) }
            let current = state.listening && now.timeIntervalSince(state.lastHeard) < heartbeatTimeout
            let newest = max(state.announced[patronID]?.version ?? 0, seen ?? 0)
            return (copy, current && copy.version >= newest)
        }
    }

    /// Keeps a copy read from PostgreSQL or just stored, unless a newer version was announced meanwhile.
    func keep(_ copy: ShelfCopy, for patronID: UUID, now: Date = Date()) {
        state.withLock { state in
            if let announced = state.announced[patronID], announced.version > copy.version { return }
            if let held = state.copies[patronID], held.version > copy.version { return }
            if state.copies.count >= limit, state.copies[patronID] == nil { state.copies.removeAll(keepingCapacity: true) }
            state.copies[patronID] = copy
        }
    }

    /// Another replica (or this one) stored `version` of the patron's shelf.
    func announced(_ version: Int64, for patronID: UUID, now: Date = Date()) {
        state.withLock { state in
            state.lastHeard = now
            if state.announced.count >= limit { state.announced = state.announced.filter { now.timeIntervalSince($0.value.at) < 60 } }
            if (state.announced[patronID]?.version ?? 0) < version { state.announced[patronID] = (version, now) }
            if let held = state.copies[patronID], held.version < version { state.copies[patronID] = nil }
        }
    }

    /// The listener heard its own heartbeat: nothing was missed up to now.
    func heard(now: Date = Date()) { state.withLock { $0.lastHeard = now } }

    /// Listening began: what was read before may have missed announcements.
    func startedListening(now: Date = Date()) {
        state.withLock { state in
            state.copies.removeAll()
            state.listening = true
            state.lastHeard = now
        }
    }

    func stoppedListening() { state.withLock { $0.listening = false } }
}
