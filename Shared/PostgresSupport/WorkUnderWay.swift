import ServiceSupport
import Synchronization

/// Work on the database that its owner can end from outside: each runs as a task of its own, and `cutOff` hands its
/// waiter an error at once, cancelling the task and leaving it behind. A PostgreSQL query whose connection closed under
/// it can wait forever in PostgresNIO, cancelled or not, so such work cannot be waited for: the requests under way when
/// the database goes away (`DatabaseWatch`), the reads under way on a replica whose pool is closed (`ReadReplicas`).
public final class WorkUnderWay<Tag: Hashable & Sendable>: Sendable {
    private let state = Mutex<(next: Int, cutOffs: [Int: (tag: Tag, cut: @Sendable () -> Void)], closed: Set<Tag>)>((0, [:], []))

    public init() {}

    /// `work`'s result, or `cutOffError` when `cutOff` or `close` reaches it first (at once when `tag` is closed); the
    /// caller's own cancellation ends the wait at once too.
    public func run<T: Sendable>(
        _ tag: Tag,
        cutOffError: @escaping @Sendable () -> any Error,
        _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let outcome = TimeoutOutcome<T>()
        let task = Task {
            do { outcome.settle(.success(try await work())) } catch { outcome.settle(.failure(error)) }
        }
        let cut: @Sendable () -> Void = {
            task.cancel()
            outcome.settle(.failure(cutOffError()))
        }
        let id = state.withLock { state -> Int? in
            guard !state.closed.contains(tag) else { return nil }
            state.next += 1
            state.cutOffs[state.next] = (tag, cut)
            return state.next
        }
        guard let id else {
            cut()
            return try await withCheckedThrowingContinuation { outcome.wait(with: $0) }
        }
        defer { _ = state.withLock { $0.cutOffs.removeValue(forKey: id) } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { outcome.wait(with: $0) }
        } onCancel: {
            task.cancel()
            outcome.settle(.failure(CancellationError()))
        }
    }

    /// The work under way now (with `tag`, or all), to be cut off later (`cutOff`) if it has not ended by then.
    public func now(_ tag: Tag? = nil) -> [Int] {
        state.withLock { state in state.cutOffs.filter { tag == nil || $0.value.tag == tag }.map(\.key) }
    }

    /// Ends the work of `ids` still under way; returns how many there were.
    @discardableResult
    public func cutOff(_ ids: [Int]) -> Int {
        let cuts = state.withLock { state in ids.compactMap { state.cutOffs[$0]?.cut } }
        for cut in cuts { cut() }
        return cuts.count
    }

    /// Ends the work with `tag` under way, and refuses any more of it until `reopen`; returns how many were ended.
    @discardableResult
    public func close(_ tag: Tag) -> Int {
        let cuts = state.withLock { state in
            state.closed.insert(tag)
            return state.cutOffs.values.filter { $0.tag == tag }.map(\.cut)
        }
        for cut in cuts { cut() }
        return cuts.count
    }

    /// Takes work with `tag` again.
    public func reopen(_ tag: Tag) { _ = state.withLock { $0.closed.remove(tag) } }

    /// How much work is under way.
    public var count: Int { state.withLock { $0.cutOffs.count } }
}
