import Foundation
import HTTPTypes
import NIOCore
import Synchronization

/// Anonymous feed documents kept in memory for a few seconds (`FEED_CACHE_TTL`, default 5 s; 0 turns it off),
/// so that the most requested pages (root, groups, the first page of each lane, popular searches) are served
/// without a query. Personalised responses are never kept. Each replica has its own; anonymous responses say
/// `Cache-Control: public, max-age=30` anyway, and this replica's admin changes clear it at once.
/// For one more lifetime after it expires an entry is kept as *stale*: while one request recomputes the page,
/// the others are answered with the previous copy instead of waiting (stale-while-revalidate).
final class FeedCache: Sendable {
    /// One stored response: the bytes as sent (gzipped or not) and their headers, ETag included. The buffer is
    /// shared by every response that sends it, never copied.
    struct Representation: Sendable {
        var body: ByteBuffer
        var headers: HTTPFields
    }

    private let entries = Mutex<[String: (representation: Representation, expires: ContinuousClock.Instant)]>([:])
    /// Keys being computed now, with the requests waiting for them.
    private let inFlight = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])
    private let lifetime: Duration
    private let capacity: Int
    private let now: @Sendable () -> ContinuousClock.Instant

    /// `now` is the clock (tests move it by hand).
    init(lifetime: Duration, capacity: Int = 2_000, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.now = now
    }

    /// The entry for `key` if it has not expired.
    func get(_ key: String) -> Representation? { lookup(key, fresh: true) }

    /// The entry for `key` if it expired less than a lifetime ago.
    func stale(_ key: String) -> Representation? { lookup(key, fresh: false) }

    private func lookup(_ key: String, fresh: Bool) -> Representation? {
        guard lifetime > .zero else { return nil }
        let now = now()
        return entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            if entry.expires > now { return fresh ? entry.representation : nil }
            guard entry.expires + lifetime > now else {
                entries[key] = nil
                return nil
            }
            return fresh ? nil : entry.representation
        }
    }

    func put(_ key: String, _ representation: Representation) {
        guard lifetime > .zero else { return }
        let expires = now() + lifetime
        entries.withLock { entries in
            // A full cache starts over: simpler than LRU, and a few seconds refill the hot pages.
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = (representation, expires)
        }
    }

    func clear() { entries.withLock { $0.removeAll() } }

    /// For a missed `key`: true when the caller should compute it (and then call `finished`); otherwise waits
    /// until the request computing it has finished and returns false, so that a page that expires under load
    /// is computed once, not by every request that arrives meanwhile.
    func leadOrWait(_ key: String) async -> Bool {
        guard !tryLead(key) else { return true }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = inFlight.withLock { inFlight in
                guard inFlight[key] != nil else { return false }
                inFlight[key]!.append(continuation)
                return true
            }
            if !waiting { continuation.resume() }
        }
        return false
    }

    /// True when nobody computes `key` now: the caller does (and then calls `finished`). Never waits.
    func tryLead(_ key: String) -> Bool {
        guard lifetime > .zero else { return true }
        return inFlight.withLock { inFlight in
            guard inFlight[key] == nil else { return false }
            inFlight[key] = []
            return true
        }
    }

    /// Ends the computation of `key` that `leadOrWait` granted, releasing the requests waiting for it.
    func finished(_ key: String) {
        let waiting = inFlight.withLock { $0.removeValue(forKey: key) ?? [] }
        for continuation in waiting { continuation.resume() }
    }
}
