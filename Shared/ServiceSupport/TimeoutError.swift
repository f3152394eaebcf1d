import Synchronization

/// Thrown by `withTimeout` when the time limit passes first.
public struct TimeoutError: Error, CustomStringConvertible {
    public let seconds: Double
    public var description: String { "did not finish within \(seconds) s; left behind" }
}

/// `operation`'s result, or `TimeoutError` after `seconds`; the caller's own cancellation ends the wait at once.
///
/// The operation runs as a task of its own; past the limit it is cancelled and left behind rather than waited for. A
/// cancelled task that never looks up cannot be waited for: a PostgreSQL query whose connection closed under it (a
/// server restart) can wait forever in PostgresNIO, and a background loop that waited with it stopped for good (shelf
/// publishing: patron kept answering, catalog's copies of shelves went stale). A task group, as this was before,
/// waits for every child on exit, so its time limit did not hold for such an operation.
@discardableResult
public func withTimeout<T: Sendable>(seconds: Double, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let outcome = TimeoutOutcome<T>()
    let work = Task {
        do { outcome.settle(.success(try await operation())) } catch { outcome.settle(.failure(error)) }
    }
    let timer = Task {
        try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        work.cancel()
        outcome.settle(.failure(TimeoutError(seconds: seconds)))
    }
    defer { timer.cancel() }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { outcome.wait(with: $0) }
    } onCancel: {
        work.cancel()
        outcome.settle(.failure(CancellationError()))
    }
}

/// The first of the work's result, the time limit and the caller's cancellation; handed to the waiting caller
/// whichever comes first, whether before or after it starts waiting. Later ones are dropped.
public final class TimeoutOutcome<T: Sendable>: Sendable {
    public init() {}

    private let state = Mutex<(result: Result<T, any Error>?, waiting: CheckedContinuation<T, any Error>?)>((nil, nil))

    public func settle(_ result: Result<T, any Error>) {
        let waiting = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(with: result)
    }

    public func wait(with continuation: CheckedContinuation<T, any Error>) {
        let ready = state.withLock { state -> Result<T, any Error>? in
            if state.result == nil { state.waiting = continuation }
            return state.result
        }
        if let ready { continuation.resume(with: ready) }
    }
}
