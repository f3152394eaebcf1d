import Dispatch

/// Work that blocks its thread (bcrypt, hashing a whole file), run on a Dispatch queue of its own, never on an event
/// loop or the Swift concurrency pool. NIO's shared `NIOThreadPool.singleton` was used before: under heavy load the
/// test suite twice stalled with every test waiting on work submitted to it and both its threads idle.
public enum BlockingWork {
    private static let queue = DispatchQueue(label: "bookmobile.blocking-work", qos: .userInitiated, attributes: .concurrent)

    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result(catching: body)) }
        }
    }
}
