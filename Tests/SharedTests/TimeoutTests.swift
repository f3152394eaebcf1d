import Foundation
import ServiceSupport
import Testing

/// A background pass past its time limit is left behind and the loop goes on; a pass on time gives its result; the
/// caller's cancellation (shutdown) ends the wait at once even when the pass never looks up.
@Suite struct TimeoutTests {
    /// Never finishes and ignores cancellation, as a PostgresNIO query whose connection closed under it can.
    static func hang() async {
        await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
    }

    @Test func aPassOnTimeGivesItsResultOrItsError() async throws {
        #expect(try await withTimeout(seconds: 5) { 42 } == 42)
        await #expect(throws: URLError.self) { try await withTimeout(seconds: 5) { throw URLError(.timedOut) } }
    }

    /// The pass never finishes, so an answer at all is the limit's.
    @Test func aPassThatNeverFinishesIsLeftBehindAtItsLimit() async throws {
        await #expect(throws: TimeoutError.self) {
            try await withTimeout(seconds: 0.2) {
                await Self.hang()
                return 1
            }
        }
    }

    /// The limit is ten minutes and the pass never finishes: a `CancellationError` is the cancellation's answer.
    @Test func theCallersCancellationEndsTheWaitAtOnce() async throws {
        let caller = Task {
            try await withTimeout(seconds: 600) {
                await Self.hang()
                return 1
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
    }
}
