import Hummingbird
import Metrics
import NIOCore
import Synchronization

/// Responses kept in memory for a few seconds under a key, by catalog (its anonymous feeds) and by the gateway
/// (catalog's shareable responses). Each replica has its own.
///
/// An entry is fresh for its lifetime (`lifetime` unless `put` says shorter), then *stale* for as long again (or
/// `staleFor`, for copies that are only ever used to be asked about with their ETag):
/// requests are answered with the previous copy instead of waiting while it is computed again (stale-while-revalidate,
/// RFC 5861): by the first of them, or, when the caller can say how (`refresh`), in a task of its own, so that no
/// request waits for a page that has a copy (a search computed again took 60-140 ms on two busy cores, the p99 of
/// every page). Concurrent misses of a key with no copy at all wait for the first to compute it. Background
/// refreshes run `maxRefreshes` at a time, the others in turn: pages cached together expire together, and their
/// refreshes all at once took the upstream's cores every lifetime from the requests waiting on it (issue 49).
/// Everything an entry holds counts against `capacityBytes` (key, headers, body and a fixed overhead), there are at most
/// `maxEntries`, and a key longer than `maxKeyBytes` is never stored: a client padding URLs cannot grow the cache.
/// Entries past their stale window are dropped at least once per lifetime (a `put` sweeps them), so the cache holds
/// what was asked for in its last lifetime and stale window, not everything since it last filled: it shrinks back when traffic
/// changes (the soak's catalog grew for twenty minutes while expired searches waited for the cache to fill).
/// When full, entries past their stale window go first, then those closest to it.
/// Answers carry `Age` (RFC 9111 §5.1), counted from the upstream's own `Age` when the stored response had one.
public final class ResponseCache: Sendable {
    struct Entry {
        var stored: StoredResponse
        var born: ContinuousClock.Instant
        var expires: ContinuousClock.Instant
        var staleUntil: ContinuousClock.Instant
        var cost: Int
    }

    /// What an entry costs beyond its bytes (the dictionary slot, the instants, the header storage).
    static let entryOverhead = 256
    public static let maxKeyBytes = 2_048

    private let lifetime: Duration
    /// How long an entry stays stale after it expires; nil: as long as it was fresh.
    private let staleFor: Duration?
    private let capacityBytes: Int
    private let maxEntries: Int
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state = Mutex<(entries: [String: Entry], bytes: Int, nextSweep: ContinuousClock.Instant?)>(([:], 0, nil))
    /// Keys being computed now, with the requests waiting for them.
    private let inFlight = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])
    private let refreshTurns: AsyncLimiter
    private let hits: Counter
    private let staleHits: Counter
    private let misses: Counter
    private let heldBytes: Gauge

    /// `name` labels the `response_cache_requests_total` metric; a `lifetime` of zero turns the cache off; `now`
    /// is the clock (tests move it by hand).
    public init(
        name: String,
        lifetime: Duration,
        staleFor: Duration? = nil,
        capacityBytes: Int,
        maxEntries: Int = 20_000,
        maxRefreshes: Int = 2,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        refreshTurns = AsyncLimiter(limit: maxRefreshes)
        self.lifetime = capacityBytes > 0 ? lifetime : .zero
        self.staleFor = staleFor
        self.capacityBytes = capacityBytes
        self.maxEntries = max(1, maxEntries)
        self.now = now
        hits = Counter(label: "response_cache_requests_total", dimensions: [("cache", name), ("result", "hit")])
        staleHits = Counter(label: "response_cache_requests_total", dimensions: [("cache", name), ("result", "stale")])
        misses = Counter(label: "response_cache_requests_total", dimensions: [("cache", name), ("result", "miss")])
        heldBytes = Gauge(label: "response_cache_bytes", dimensions: [("cache", name)])
    }

    public var isEnabled: Bool { lifetime > .zero }

    /// Answers `request` from the entry for `key` when there is one to use, otherwise runs `compute`, which is
    /// expected to `put` what may be kept. A stale entry is computed again by `refresh` in a task of its own when there
    /// is one (it too is expected to `put`), else by `compute` for the request that found it first. See the type's
    /// description for who waits and who gets a stale copy.
    public func respond(
        to request: Request,
        key: String,
        refresh: (@Sendable () async throws -> Void)? = nil,
        compute: () async throws -> Response
    ) async throws -> Response {
        if let hit = get(key) {
            hits.increment()
            return hit.response(to: request)
        }
        let stale = self.stale(key)
        if let stale, let refresh {
            staleHits.increment()
            refreshInBackground(key, refresh)
            return stale.response(to: request)
        }
        let leads = stale == nil ? await leadOrWait(key) : tryLead(key)
        if leads {
            misses.increment()
            defer { finished(key) }
            return try await compute()
        }
        if let copy = stale ?? get(key) {
            staleHits.increment()
            return copy.response(to: request)
        }
        misses.increment()
        return try await compute()
    }

    /// The entry for `key`, fresh or stale; a stale one is computed again by `refresh` in a task of its own (`put` is
    /// its to call), unless that is under way already.
    public func copy(_ key: String, refreshingStaleWith refresh: @escaping @Sendable () async throws -> Void) -> StoredResponse? {
        if let fresh = get(key) { return fresh }
        guard let stale = stale(key) else { return nil }
        refreshInBackground(key, refresh)
        return stale
    }

    /// Runs `refresh` for `key` in a task of its own, in its turn (`maxRefreshes`), unless one is computing the key
    /// already. A failure keeps the stale copy until its stale time ends (then the next request computes it and meets
    /// the failure itself).
    private func refreshInBackground(_ key: String, _ refresh: @escaping @Sendable () async throws -> Void) {
        guard tryLead(key) else { return }
        Task {
            defer { finished(key) }
            await refreshTurns.run {
                // Kept meanwhile by a request that found no copy left.
                guard get(key) == nil else { return }
                try? await refresh()
            }
        }
    }

    /// The entry for `key` if it is fresh.
    public func get(_ key: String) -> StoredResponse? { lookup(key, fresh: true) }

    /// The entry for `key` if it expired less than its stale window ago.
    public func stale(_ key: String) -> StoredResponse? { lookup(key, fresh: false) }

    private func lookup(_ key: String, fresh: Bool) -> StoredResponse? {
        guard isEnabled else { return nil }
        let now = now()
        let entry = state.withLock { state -> Entry? in
            guard let entry = state.entries[key] else { return nil }
            if entry.expires > now { return fresh ? entry : nil }
            guard entry.staleUntil > now else {
                state.entries[key] = nil
                state.bytes -= entry.cost
                return nil
            }
            return fresh ? nil : entry
        }
        guard var stored = entry?.stored else { return nil }
        stored.headers[.age] = "\((now - entry!.born).components.seconds)"
        return stored
    }

    /// Keeps `stored` under `key`, fresh for `lifetime` (at most the cache's own), then stale for as long again or
    /// the cache's `staleFor`.
    public func put(_ key: String, _ stored: StoredResponse, lifetime: Duration? = nil) {
        let cost = Self.cost(key: key, stored)
        let lifetime = min(lifetime ?? self.lifetime, self.lifetime)
        guard lifetime > .zero, cost <= capacityBytes, key.utf8.count <= Self.maxKeyBytes else { return }
        let now = now()
        let age = stored.headers[.age].flatMap(Int64.init) ?? 0
        let entry = Entry(
            stored: stored,
            born: now - .seconds(age),
            expires: now + lifetime,
            staleUntil: now + lifetime + (staleFor ?? lifetime),
            cost: cost
        )
        let bytes = state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.bytes -= old.cost }
            let full = state.bytes + cost > capacityBytes || state.entries.count >= maxEntries
            if full || state.nextSweep.map({ $0 <= now }) ?? true {
                for (key, entry) in state.entries where entry.staleUntil <= now {
                    state.entries[key] = nil
                    state.bytes -= entry.cost
                }
                state.nextSweep = now + lifetime
            }
            if full {
                // Besides what expired for good, the entries closest to it go, down to 90 % of the budget, so that a
                // stream of new keys sorts the entries once per tenth, not once per key.
                let bytesGoal = capacityBytes / 10 * 9 - cost
                let countGoal = maxEntries / 10 * 9
                if state.bytes > bytesGoal || state.entries.count > countGoal {
                    for (key, entry) in state.entries.sorted(by: { $0.value.staleUntil < $1.value.staleUntil }) {
                        guard state.bytes > bytesGoal || state.entries.count > countGoal else { break }
                        state.entries[key] = nil
                        state.bytes -= entry.cost
                    }
                }
            }
            state.entries[key] = entry
            state.bytes += cost
            return state.bytes
        }
        heldBytes.record(bytes)
    }

    /// What an entry counts against the capacity.
    static func cost(key: String, _ stored: StoredResponse) -> Int {
        let headers = stored.headers.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 }
        return key.utf8.count + headers + stored.body.readableBytes + (stored.source?.bytes ?? 0) + stored.bookIDs.count * 32 + entryOverhead
    }

    /// Forgets every entry, stale copies included (after a change that must show at once).
    public func clear() {
        state.withLock { $0 = ([:], 0, nil) }
        heldBytes.record(0)
    }

    /// Forgets the entries whose key starts with `prefix` (one page's representations and queries).
    public func removeAll(withKeyPrefix prefix: String) {
        let bytes = state.withLock { state in
            for (key, entry) in state.entries where key.hasPrefix(prefix) {
                state.entries[key] = nil
                state.bytes -= entry.cost
            }
            return state.bytes
        }
        heldBytes.record(bytes)
    }

    /// What the entries held now count against the capacity (keys, headers, bodies, overhead).
    public var bytes: Int { state.withLock { $0.bytes } }

    /// How many entries are held now.
    public var count: Int { state.withLock { $0.entries.count } }

    /// For a missed `key`: true when the caller should compute it (and then call `finished`); otherwise waits
    /// until the request computing it has finished and returns false.
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
        guard isEnabled else { return true }
        return inFlight.withLock { inFlight in
            guard inFlight[key] == nil else { return false }
            inFlight[key] = []
            return true
        }
    }

    /// Ends the computation of `key` that `leadOrWait` or `tryLead` granted, releasing the requests waiting for it.
    func finished(_ key: String) {
        let waiting = inFlight.withLock { $0.removeValue(forKey: key) ?? [] }
        for continuation in waiting { continuation.resume() }
    }
}
