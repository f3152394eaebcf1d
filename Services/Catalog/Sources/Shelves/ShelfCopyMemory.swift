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
///
/// The copies are held within `byteLimit` (a copy's size grows with the patron's shelf: up to 500 saved and 500
/// ignored books): past it, the older half of the copies, by when they were kept, is dropped, never all of them.
final class ShelfCopyMemory: Sendable {
    /// Announcements remembered at most (each a few dozen bytes).
    let limit: Int
    let byteLimit: Int
    let heartbeatTimeout: TimeInterval
    /// Every announcement heard, for the gateways that follow them.
    let announcements = ShelfAnnouncementLog()

    private struct Held {
        var copy: ShelfCopy
        var bytes: Int
        /// When it was kept, as a count: the older half goes first.
        var kept: Int
    }

    private struct State {
        var held: [UUID: Held] = [:]
        var bytes = 0
        var keptCount = 0
        /// Versions announced lately, kept a minute: a read that began before an announcement must not store the
        /// older copy it got.
        var announced: [UUID: (version: Int64, at: Date)] = [:]
        var listening = false
        var lastHeard = Date.distantPast
    }
    private let state = Mutex(State())

    init(limit: Int = 50_000, byteLimit: Int = 64 << 20, heartbeatTimeout: TimeInterval = 6) {
        self.limit = limit
        self.byteLimit = byteLimit
        self.heartbeatTimeout = heartbeatTimeout
    }

    /// What a copy costs in memory, roughly: its books' views and ignored ids, and a dictionary entry.
    static func bytes(of copy: ShelfCopy) -> Int {
        128 + copy.shelf.books.count * (MemoryLayout<PatronBookView>.stride + 16) + copy.shelf.ignored.count * MemoryLayout<UUID>.stride
    }

    /// The bytes held now (for tests and metrics).
    var heldBytes: Int { state.withLock { $0.bytes } }

    /// The copy held for the patron, and whether it may be used without asking PostgreSQL.
    /// Whether every announcement is heard now (listening, and the last heartbeat recent).
    func isCurrent(now: Date = Date()) -> Bool {
        state.withLock { $0.listening && now.timeIntervalSince($0.lastHeard) < heartbeatTimeout }
    }

    func lookup(_ patronID: UUID, atLeast seen: Int64? = nil, now: Date = Date()) -> (copy: ShelfCopy?, trusted: Bool) {
        state.withLock { state in
            guard let copy = state.held[patronID]?.copy else { return (nil, false) }
            let current = state.listening && now.timeIntervalSince(state.lastHeard) < heartbeatTimeout
            let newest = max(state.announced[patronID]?.version ?? 0, seen ?? 0)
            return (copy, current && copy.version >= newest)
        }
    }

    /// Keeps a copy read from PostgreSQL or just stored, unless a newer version was announced meanwhile.
    func keep(_ copy: ShelfCopy, for patronID: UUID, now: Date = Date()) {
        state.withLock { state in
            if let announced = state.announced[patronID], announced.version > copy.version { return }
            if let held = state.held[patronID], held.copy.version > copy.version { return }
            let bytes = Self.bytes(of: copy)
            state.bytes += bytes - (state.held[patronID]?.bytes ?? 0)
            state.keptCount += 1
            state.held[patronID] = Held(copy: copy, bytes: bytes, kept: state.keptCount)
            if state.bytes > byteLimit {
                state.held = state.held.newerHalf(by: \.kept)
                state.bytes = state.held.values.reduce(0) { $0 + $1.bytes }
            }
        }
    }

    /// Another replica (or this one) stored `version` of the patron's shelf.
    func announced(_ version: Int64, for patronID: UUID, now: Date = Date()) {
        announcements.append(patron: patronID, version: version)
        state.withLock { state in
            state.lastHeard = now
            if state.announced.count >= limit { state.announced = state.announced.filter { now.timeIntervalSince($0.value.at) < 60 } }
            if (state.announced[patronID]?.version ?? 0) < version { state.announced[patronID] = (version, now) }
            if let held = state.held[patronID], held.copy.version < version {
                state.held[patronID] = nil
                state.bytes -= held.bytes
            }
        }
    }

    /// The listener heard its own heartbeat: nothing was missed up to now.
    func heard(now: Date = Date()) { state.withLock { $0.lastHeard = now } }

    /// Listening began: what was read before may have missed announcements.
    func startedListening(now: Date = Date()) {
        announcements.newEpoch()
        state.withLock { state in
            state.held.removeAll()
            state.bytes = 0
            state.listening = true
            state.lastHeard = now
        }
    }

    func stoppedListening() {
        state.withLock { $0.listening = false }
        announcements.newEpoch()
    }

}
