import Synchronization

/// One task per key at a time: whoever asks for a key while its task runs gets that task, not a second run of the
/// same work (the gateway's Basic checks, catalog's first hashing of a blob). The task forgets itself when done.
public final class SharedTasks<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let running = Mutex<[Key: Task<Value, Never>]>([:])

    public init() {}

    /// How many keys have a task under way now.
    public var underWay: Int { running.withLock { $0.count } }

    /// The task under way for `key`, or `work` started now.
    public func task(for key: Key, _ work: @escaping @Sendable () async -> Value) -> Task<Value, Never> {
        running.withLock { running in
            if let task = running[key] { return task }
            // The task removes itself under the same lock, so only after it has been stored here.
            let task = Task {
                defer { _ = self.running.withLock { $0.removeValue(forKey: key) } }
                return await work()
            }
            running[key] = task
            return task
        }
    }
}
