import Foundation
import Synchronization

/// The first fetches from catalog of files the gateway is about to hold, by path: a request for the same file that
/// arrives meanwhile waits (at most `patience`) for that copy, then asks catalog with the copy's ETag like any later
/// download (catalog still decides each one, and answers 304), instead of the file crossing the hop once per request.
final class FirstFetches: Sendable {
    /// How long a request waits for another's first fetch before fetching the file itself.
    let patience: Duration
    private struct Fetch {
        /// Which request's fetch this is: a fetch taken over ends only its own entry.
        var id = UUID()
        var started: ContinuousClock.Instant
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    }
    private let waiting = Mutex<[String: Fetch]>([:])

    init(patience: Duration = .seconds(5)) { self.patience = patience }

    /// The fetch of `key` this request is to make first, or nil when another request's is under way. A fetch older
    /// than `patience` (its client went away before its answer was sent) is taken over.
    func begin(_ key: String) -> FirstFetch? {
        let now = ContinuousClock.now
        let (id, abandoned) = waiting.withLock { fetches -> (UUID?, [CheckedContinuation<Void, Never>]) in
            if let fetch = fetches[key], now - fetch.started < patience { return (nil, []) }
            let abandoned = fetches[key].map { Array($0.waiters.values) } ?? []
            let fetch = Fetch(started: now)
            fetches[key] = fetch
            return (fetch.id, abandoned)
        }
        for continuation in abandoned { continuation.resume() }
        return id.map { FirstFetch(key: key, id: $0, fetches: self) }
    }

    /// Returns once the fetch of `key` under way has ended, or after `patience`.
    func wait(for key: String) async {
        let id = UUID()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let added = waiting.withLock { fetches -> Bool in
                guard fetches[key] != nil else { return false }
                fetches[key]?.waiters[id] = continuation
                return true
            }
            guard added else { return continuation.resume() }
            Task { [patience] in
                try? await Task.sleep(for: patience)
                self.waiting.withLock { $0[key]?.waiters.removeValue(forKey: id) }?.resume()
            }
        }
    }

    /// Fetch `id` of `key` ended (its copy kept, or no copy to keep): every request waiting for it goes on. A fetch
    /// that another request took over ends nothing of the newer one.
    fileprivate func end(_ key: String, id: UUID) {
        let waiters = waiting.withLock { fetches -> [UUID: CheckedContinuation<Void, Never>] in
            guard fetches[key]?.id == id else { return [:] }
            return fetches.removeValue(forKey: key)?.waiters ?? [:]
        }
        for continuation in waiters.values { continuation.resume() }
    }
}

/// One first fetch: ended once, when its copy is kept, or at once when catalog's answer is not a file to keep.
final class FirstFetch: Sendable {
    let key: String
    private let id: UUID
    private let fetches: FirstFetches
    private let state = Mutex((streaming: false, ended: false))

    fileprivate init(key: String, id: UUID, fetches: FirstFetches) {
        self.key = key
        self.id = id
        self.fetches = fetches
    }

    /// Catalog's answer is being sent on and kept (`sentAndKept` ends the fetch after its last byte).
    func streamingStarted() { state.withLock { $0.streaming = true } }
    var isStreaming: Bool { state.withLock { $0.streaming } }

    func end() {
        let first = state.withLock { state -> Bool in
            guard !state.ended else { return false }
            state.ended = true
            return true
        }
        if first { fetches.end(key, id: id) }
    }
}
