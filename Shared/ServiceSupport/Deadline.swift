import Synchronization

/// A time limit for a background loop's pass. The pass runs as a task of its own; past the limit it is cancelled and
/// left behind, and the loop goes on. A cancelled task that never looks up cannot be waited for: a PostgreSQL query
/// whose connection closed under it (a server restart) can wait forever in PostgresNIO, and a loop that waited with it
/// stopped for good (found with shelf publishing: patron kept answering, catalog's copies of shelves went stale).
public enum Deadline {
    public struct Exceeded: Error, CustomStringConvertible {
        public let seconds: Double
        public var description: String { "did not finish within \(seconds) s; left behind" }
    }

    /// `operation`'s result, or `Exceeded` after `seconds`; the caller's own cancellation ends the wait at once.
    @discardableResult
    public static func run<T: Sendable>(seconds: Double, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let outcome = Outcome<T>()
        let work = Task {
            do { outcome.settle(.success(try await operation())) } catch { outcome.settle(.failure(error)) }
        }
        let timer = Task {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            outcome.settle(.failure(Exceeded(seconds: seconds)))
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
    /// whichever comes first, whether before or after it starts waiting.
    final class Outcome<T: Sendable>: Sendable {
        private let state = Mutex<(result: Result<T, any Error>?, waiting: CheckedContinuation<T, any Error>?, done: Bool)>((nil, nil, false))

        func settle(_ result: Result<T, any Error>) {
            let waiting = state.withLock { state -> CheckedContinuation<T, any Error>? in
                guard !state.done, state.result == nil else { return nil }
                guard let waiting = state.waiting else {
                    state.result = result
                    return nil
                }
                state.done = true
                state.waiting = nil
                return waiting
            }
            waiting?.resume(with: result)
        }

        func wait(with continuation: CheckedContinuation<T, any Error>) {
            let ready = state.withLock { state -> Result<T, any Error>? in
                guard let result = state.result else {
                    state.waiting = continuation
                    return nil
                }
                state.done = true
                return result
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
