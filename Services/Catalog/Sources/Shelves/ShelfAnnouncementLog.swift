import Foundation
import Shared
import Synchronization

/// The shelf versions this replica heard announced (`ShelfCopyListener`), numbered in the order heard, for gateways
/// that follow them (`GET /internal/shelf-announcements`): a gateway that knows of every change to every shelf can keep
/// what it knows of a patron's shelf until it changes, instead of asking catalog again every moment.
///
/// The numbering belongs to one run of listening (its `epoch`): when listening starts again, or its heartbeat lapses,
/// announcements may have been missed, so a new epoch begins and a follower of the old one is told to forget
/// everything (`reset`). At most `capacity` announcements are kept; a follower further behind is reset too.
final class ShelfAnnouncementLog: Sendable {
    let capacity: Int

    private struct State {
        var epoch = UUID().lowercased
        /// The number of the newest announcement (0: none yet in this epoch).
        var newest: Int64 = 0
        var entries: [(number: Int64, announcement: ShelfAnnouncements.Change)] = []
    }

    private let state = Mutex(State())

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// A shelf version was announced.
    func append(patron: UUID, version: Int64) {
        state.withLock { state in
            state.newest += 1
            state.entries.append((state.newest, ShelfAnnouncements.Change(patron: patron, version: version)))
            if state.entries.count > capacity + capacity / 4 { state.entries.removeFirst(state.entries.count - capacity) }
        }
    }

    /// Announcements may have been missed: followers start again.
    func newEpoch() {
        state.withLock { state in
            state.epoch = UUID().lowercased
            state.newest = 0
            state.entries.removeAll()
        }
    }

    /// What a follower that has read up to `after` in `epoch` has not seen; `reset` when it cannot know (another
    /// epoch, or fallen behind what is kept).
    func read(epoch: String?, after: Int64, limit: Int = 10_000) -> ShelfAnnouncements {
        state.withLock { state in
            let oldest = state.entries.first?.number ?? state.newest + 1
            guard epoch == state.epoch, after <= state.newest, after >= oldest - 1 else {
                return ShelfAnnouncements(epoch: state.epoch, next: state.newest, reset: true, changes: [])
            }
            let start = state.entries.count - Int(state.newest - after)
            let end = min(start + limit, state.entries.count)
            let next = end > start ? state.entries[end - 1].number : after
            return ShelfAnnouncements(epoch: state.epoch, next: next, reset: false, changes: state.entries[start..<end].map(\.announcement))
        }
    }

    /// Whether a follower that has read up to `after` in `epoch` has something to read.
    func hasNews(epoch: String?, after: Int64) -> Bool { state.withLock { epoch != $0.epoch || $0.newest > after } }
}
