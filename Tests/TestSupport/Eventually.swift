/// Retries `condition` every 100 ms until it holds, or throws after `timeout` (generous: CI machines are loaded, and
/// a cached page may take two cache lifetimes to change).
public func eventually(
    timeout: Duration = .seconds(40),
    _ message: @autoclosure () -> String,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(100))
    }
    throw TimedOut(description: "timed out: \(message())")
}

/// What `eventually` throws.
public struct TimedOut: Error, CustomStringConvertible {
    public let description: String
}
