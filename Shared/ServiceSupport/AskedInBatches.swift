import Synchronization

/// Questions about many keys gathered for a moment and asked of another service in one request: the gateway's
/// background renewals of its session and secret checks, a fifth of its browsing patrons a second, were a request to
/// patron and a statement each (issue 49: at 1,000 patrons, patron's busiest work under signed-in browsing). A batch
/// leaves `window` after its first question, or at once when it holds `maxKeys`. Every caller of a batch that failed, or
/// whose key the answer left out, gets nil (no answer).
public final class AskedInBatches<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    public typealias Ask = @Sendable ([Key]) async -> [Key: Value]?
    private typealias Waiting = [Key: [CheckedContinuation<Value?, Never>]]

    private let window: Duration
    private let maxKeys: Int
    private let ask: Ask
    private let state = Mutex<(waiting: Waiting, timing: Bool)>(([:], false))

    public init(window: Duration, maxKeys: Int, ask: @escaping Ask) {
        self.window = window
        self.maxKeys = max(1, maxKeys)
        self.ask = ask
    }

    /// The answer for `key`, asked with the other keys of its batch.
    public func value(for key: Key) async -> Value? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            let (full, startTimer) = state.withLock { state -> (Waiting?, Bool) in
                state.waiting[key, default: []].append(continuation)
                if state.waiting.count >= maxKeys {
                    defer { state.waiting = [:] }
                    return (state.waiting, false)
                }
                if state.timing { return (nil, false) }
                state.timing = true
                return (nil, true)
            }
            if let full { Task { await send(full) } }
            if startTimer {
                Task {
                    try? await Task.sleep(for: window)
                    let batch = state.withLock { state -> Waiting in
                        defer { state = ([:], false) }
                        return state.waiting
                    }
                    if !batch.isEmpty { await send(batch) }
                }
            }
        }
    }

    private func send(_ batch: Waiting) async {
        let answers = await ask(Array(batch.keys))
        for (key, waiting) in batch {
            for continuation in waiting { continuation.resume(returning: answers?[key]) }
        }
    }
}
