import Foundation
import Synchronization

/// Answers another service gave, remembered for `lifetime` and asked for again in the background once past half of it:
/// a key in steady use (a patron browsing) never waits for the other service, however busy it is, and no answer older
/// than `lifetime` is ever used. Requests that find no answer at once share one ask.
public final class FreshAnswers<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline let answers: ExpiringAnswers<Key, Value>
    private let asking = SharedTasks<Key, Value?>()
    /// How many times answers were forgotten: an ask under way when one was (a patron's PIN changed through this
    /// gateway while their answer was being renewed) gives its answer to its callers but does not remember it.
    private let forgettings = Mutex<UInt64>(0)

    public init(lifetime: TimeInterval, limit: Int = 100_000, now: @escaping @Sendable () -> Date = Date.init) {
        answers = ExpiringAnswers(lifetime: lifetime, limit: limit, now: now)
    }

    /// The remembered answer (asked again in the background when past half its lifetime, by `renew` when given, which
    /// may take longer: nobody waits for it), or else `ask`'s, waited for. Either returns nil when it has no answer (the
    /// service is down): nothing is remembered. Inlinable, as `ExpiringAnswers`' lookups are: every signed-in request
    /// asks one.
    @inlinable public func answer(
        for key: Key,
        ask: @escaping @Sendable () async -> Value?,
        renew: (@Sendable () async -> Value?)? = nil
    ) async -> Value? {
        if let (value, renewDue) = kept(key) {
            if renewDue { _ = asked(key, renew ?? ask) }
            return value
        }
        return await asked(key, ask).value
    }

    /// The remembered answer without waiting for anything, and whether it is past half its lifetime (the caller then
    /// starts `renew(_:with:)`); nil when there is none. The gateway's signed-in requests take this path synchronously:
    /// no task frame, no closure made, on a hit.
    @inlinable public func kept(_ key: Key) -> (value: Value, renewDue: Bool)? {
        answers.answer(for: key, renewWithin: answers.lifetime / 2)
    }

    /// Asks again in the background (shared with any ask under way); nobody waits for it.
    @inlinable public func renew(_ key: Key, with renew: @escaping @Sendable () async -> Value?) { _ = asked(key, renew) }

    @usableFromInline func asked(_ key: Key, _ ask: @escaping @Sendable () async -> Value?) -> Task<Value?, Never> {
        // Counted before the ask's task is made: one that starts after a `forget` began before it.
        let before = forgettings.withLock { $0 }
        return asking.task(for: key) { [self] in
            guard let value = await ask() else { return nil }
            forgettings.withLock { if $0 == before { answers.remember(value, for: key) } }
            return value
        }
    }

    /// Forgets the answer for `key`.
    public func forget(_ key: Key) {
        forgettings.withLock {
            $0 += 1
            answers.forget(key)
        }
    }

    /// Forgets every answer `matches` picks.
    public func forget(where matches: (Key, Value) -> Bool) {
        forgettings.withLock {
            $0 += 1
            answers.forget(where: matches)
        }
    }
}
