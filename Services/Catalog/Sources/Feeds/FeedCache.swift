import Foundation
import HTTPTypes
import NIOCore
import Synchronization

/// Anonymous feed documents kept in memory for a few seconds (`FEED_CACHE_TTL`, default 5 s; 0 turns it off),
/// so that the most requested pages (root, groups, the first page of each lane, popular searches) are served
/// without a query. Personalised responses are never kept. Each replica has its own; anonymous responses say
/// `Cache-Control: public, max-age=30` anyway, and this replica's admin changes clear it at once.
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

    init(lifetime: Duration, capacity: Int = 2_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    func get(_ key: String) -> Representation? {
        guard lifetime > .zero else { return nil }
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard entry.expires > now else {
                entries[key] = nil
                return nil
            }
            return entry.representation
        }
    }

    func put(_ key: String, _ representation: Representation) {
        guard lifetime > .zero else { return }
        let expires = ContinuousClock.now + lifetime
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
        guard lifetime > .zero else { return true }
        let leads = inFlight.withLock { inFlight in
            guard inFlight[key] == nil else { return false }
            inFlight[key] = []
            return true
        }
        guard !leads else { return true }
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

    /// Ends the computation of `key` that `leadOrWait` granted, releasing the requests waiting for it.
    func finished(_ key: String) {
        let waiting = inFlight.withLock { $0.removeValue(forKey: key) ?? [] }
        for continuation in waiting { continuation.resume() }
    }
}
