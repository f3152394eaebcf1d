import Foundation
import ServiceSupport
import Synchronization
import Testing

/// A background loop stops when its own task is cancelled, and goes on after a `CancellationError` that a library threw
/// while the task was not (PostgresNIO's, for a row stream whose connection closed under it).
@Suite struct BackgroundLoopStopTests {
    @Test func aLibrarysCancellationErrorDoesNotStopTheLoopButTheTasksOwnCancellationDoes() async throws {
        #expect(!CancellationError().stopsBackgroundLoop, "the task is not cancelled")
        #expect(!URLError(.timedOut).stopsBackgroundLoop)
        let task = Task {
            try? await Task.sleep(for: .seconds(30))
            return CancellationError().stopsBackgroundLoop
        }
        task.cancel()
        #expect(await task.value, "the task's own cancellation stops it")
    }

    @Test func aPeriodicJobRunsAgainAfterAPassThatThrewCancellationError() async throws {
        let passes = Atomic(0)
        let job = Task {
            try await PeriodicJob.run(every: 0.01, after: .migrated, logger: .init(label: "test"), failure: "pass failed") {
                if passes.add(1, ordering: .relaxed).newValue == 1 { throw CancellationError() }
            }
        }
        for _ in 0..<6_000 where passes.load(ordering: .relaxed) < 3 { try await Task.sleep(for: .milliseconds(10)) }
        job.cancel()
        #expect(passes.load(ordering: .relaxed) >= 3, "the job went on after the first pass's CancellationError")
    }
}
