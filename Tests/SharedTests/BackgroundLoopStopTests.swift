import Foundation
import Logging
import ServiceLifecycle
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

    /// Graceful shutdown lets a pass under way finish (cancelled inside its transaction, a pass could leave its
    /// pooled connection, and the service's shutdown, waiting) and ends the wait for the next pass at once.
    @Test func gracefulShutdownLetsAPassUnderWayFinishAndEndsTheWaitForTheNext() async throws {
        let started = Atomic(0)
        let finished = Atomic(0)
        let job = Job {
            try await PeriodicJob.run(every: 3600, after: .migrated, logger: Logger(label: "test"), failure: "pass failed") {
                started.add(1, ordering: .relaxed)
                try await Task.sleep(for: .milliseconds(300))  // throws if the pass is cancelled
                finished.add(1, ordering: .relaxed)
            }
        }
        let group = ServiceGroup(configuration: .init(services: [job], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            for _ in 0..<1_000 where started.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(5)) }
            let shutdown = ContinuousClock.now
            await group.triggerGracefulShutdown()
            try await tasks.next()
            #expect(started.load(ordering: .relaxed) == 1 && finished.load(ordering: .relaxed) == 1, "the pass under way finished")
            #expect(ContinuousClock.now - shutdown < .seconds(30), "the hour's wait for the next pass ended at shutdown")
        }
    }

    struct Job: Service {
        let body: @Sendable () async throws -> Void
        func run() async throws { try await body() }
    }
}
