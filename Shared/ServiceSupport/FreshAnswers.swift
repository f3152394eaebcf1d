import Foundation

/// Answers another service gave, remembered for `lifetime` and asked for again in the background once past half of it:
/// a key in steady use (a patron browsing) never waits for the other service, however busy it is, and no answer older
/// than `lifetime` is ever used. Requests that find no answer at once share one ask.
public final class FreshAnswers<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let answers: ExpiringAnswers<Key, Value>
    private let asking = SharedTasks<Key, Value?>()

    public init(lifetime: TimeInterval, limit: Int = 100_000, now: @escaping @Sendable () -> Date = Date.init) {
        answers = ExpiringAnswers(lifetime: lifetime, limit: limit, now: now)
    }

    /// The remembered answer (asked again in the background when past half its lifetime), or else `ask`'s, waited
    /// for. `ask` returns nil when it has no answer (the service is down): nothing is remembered.
    public func answer(for key: Key, ask: @escaping @Sendable () async -> Value?) async -> Value? {
        if let (value, renewDue) = answers.answer(for: key, renewWithin: answers.lifetime / 2) {
            if renewDue { _ = asked(key, ask) }
            return value
        }
        return await asked(key, ask).value
    }

    private func asked(_ key: Key, _ ask: @escaping @Sendable () async -> Value?) -> Task<Value?, Never> {
        asking.task(for: key) { [answers] in
            guard let value = await ask() else { return nil }
            answers.remember(value, for: key)
            return value
        }
    }

    /// Forgets the answer for `key`.
    public func forget(_ key: Key) { answers.forget(key) }

    /// Forgets every answer `matches` picks.
    public func forget(where matches: (Key, Value) -> Bool) { answers.forget(where: matches) }
}
