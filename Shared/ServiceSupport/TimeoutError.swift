import Hummingbird
import Logging
import NIOCore
import Prometheus
import Shared

/// Thrown by `withTimeout` when the deadline passes first.
public struct TimeoutError: Error {}

/// Runs `operation`, cancelling it and throwing `TimeoutError` after `seconds`.
public func withTimeout<T: Sendable>(seconds: Double, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            throw TimeoutError()
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
