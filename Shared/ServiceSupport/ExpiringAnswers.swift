import Foundation
import Synchronization

/// Answers remembered for a fixed time (the gateway's Basic verdicts, session checks and verified tokens; catalog's
/// decoded shelf copies). At most `limit` entries: when full, the expired ones are dropped, and if none had expired,
/// the older half (`newerHalf`). The lookups are inlinable: specialised where they are called (the gateway's verdicts and
/// summaries on every signed-in request), not looked up through generic metadata each time.
public final class ExpiringAnswers<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    public let lifetime: TimeInterval
    public let limit: Int
    @usableFromInline let entries = Mutex<[Key: (value: Value, until: Date)]>([:])
    /// The time answers age by (a test's own clock).
    @usableFromInline let now: @Sendable () -> Date

    public init(lifetime: TimeInterval, limit: Int = 100_000, now: @escaping @Sendable () -> Date = Date.init) {
        self.lifetime = lifetime
        self.limit = limit
        self.now = now
    }

    /// The remembered answer, while it is fresh.
    @inlinable public subscript(key: Key) -> Value? {
        let now = self.now()
        return entries.withLock { $0[key] }.flatMap { $0.until > now ? $0.value : nil }
    }

    /// The remembered answer while it is fresh, and whether it is within its last `margin` seconds (time to ask
    /// again, while the answer still stands).
    @inlinable public func answer(for key: Key, renewWithin margin: TimeInterval) -> (value: Value, renewDue: Bool)? {
        let now = self.now()
        guard let entry = entries.withLock({ $0[key] }), entry.until > now else { return nil }
        return (entry.value, entry.until.timeIntervalSince(now) < margin)
    }

    /// Keeps `value` for `lifetime` (the answers' own when nil).
    public func remember(_ value: Value, for key: Key, lifetime: TimeInterval? = nil) {
        let now = self.now()
        entries.withLock { entries in
            if entries.count >= limit {
                entries = entries.filter { $0.value.until > now }
                if entries.count >= limit { entries = entries.newerHalf(by: \.until) }
            }
            entries[key] = (value, now.addingTimeInterval(lifetime ?? self.lifetime))
        }
    }

    /// Forgets the answer for `key`.
    public func forget(_ key: Key) { _ = entries.withLock { $0.removeValue(forKey: key) } }

    /// Forgets every answer `matches` picks (a patron's, after their PIN changed or their sessions ended).
    public func forget(where matches: (Key, Value) -> Bool) {
        entries.withLock { entries in entries = entries.filter { !matches($0.key, $0.value.value) } }
    }
}
