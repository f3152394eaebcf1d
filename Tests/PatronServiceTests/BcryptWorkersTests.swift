import Dispatch
import Foundation
import Hummingbird
import HummingbirdTesting
import ServiceSupport
import Synchronization
import TestSupport
import Testing

@testable import PatronService

/// bcrypt on threads of its own: never more at once than the workers, first checks in arrival order, background
/// renewals only when no first check waits, and a full queue refused at once (a 503 that counts no sign-in attempt).
@Suite struct BcryptWorkersTests {
    /// A job that blocks its worker until `release`, so that the tests decide what is queued behind it.
    final class Gate: Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        func wait() { semaphore.wait() }
        func release() { semaphore.signal() }
    }

    /// A value the workers' threads and the test share.
    final class SharedValue<Value: Sendable>: Sendable {
        let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
        func update<T>(_ body: (inout Value) -> T) -> T { value.withLock { body(&$0) } }
        var now: Value { value.withLock { $0 } }
    }

    /// Gives the only worker a job that holds it until `gate` opens, once it has begun.
    func occupy(_ workers: BcryptWorkers, until gate: Gate, in group: inout ThrowingTaskGroup<Void, any Error>) async throws {
        let started = SharedValue(false)
        group.addTask {
            try await workers.run(.first) {
                started.update { $0 = true }
                gate.wait()
            }
        }
        try await eventually { started.now }
    }

    /// Waits until `condition` holds (a worker has taken a job, checks are queued), at most 60 s.
    func eventually(_ condition: () -> Bool) async throws {
        for _ in 0..<6_000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition())
    }

    /// A check longer than `LowPriorityThread.napEvery` is sent its nap signals (the handler naps and returns) and
    /// gives its result all the same: 60 ms of its own thread's CPU, a sum that a lost or misdirected signal would stop.
    @Test func aLongCheckNappedBySignalsGivesItsResult() async throws {
        let workers = BcryptWorkers(workers: 2, maxWait: 10, cost: 0.1)
        let sums = try await withThrowingTaskGroup(of: UInt64.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await workers.run(.first) {
                        var sum: UInt64 = 0
                        var used = timespec()
                        repeat {
                            for step in 0..<10_000 { sum &+= UInt64(step) }
                            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &used)
                        } while used.tv_sec == 0 && used.tv_nsec < 60_000_000
                        return sum % 49_995_000
                    }
                }
            }
            return try await group.reduce(into: [UInt64]()) { $0.append($1) }
        }
        #expect(sums == [0, 0], "each check ran to its end")
    }

    @Test func neverMoreChecksAtOnceThanWorkers() async throws {
        let workers = BcryptWorkers(workers: 2, maxWait: 60, cost: 0.01)
        let counts = SharedValue((now: 0, most: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await workers.run(.first) {
                        counts.update {
                            $0.now += 1
                            $0.most = max($0.most, $0.now)
                        }
                        // Held until two checks have run at once (10 s at most): on a loaded machine two 50 ms
                        // checks could otherwise run one after the other and show nothing of the bound.
                        let deadline = Date().addingTimeInterval(10)
                        while counts.now.most < 2, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
                        Thread.sleep(forTimeInterval: 0.02)
                        counts.update { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(counts.now.most == 2)
    }

    @Test func firstChecksGoInArrivalOrderAndRenewalsOnlyWhenNoneWaits() async throws {
        let workers = BcryptWorkers(workers: 1, maxWait: 60, cost: 0.01)
        let gate = Gate()
        let order = SharedValue<[String]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            try await occupy(workers, until: gate, in: &group)
            // Queued one after the other while the only worker is busy: the renewal first, then three first checks.
            for name in ["renewal", "first 1", "first 2", "first 3"] {
                group.addTask {
                    try await workers.run(name == "renewal" ? .background : .first) { order.update { $0.append(name) } }
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            gate.release()
            try await group.waitForAll()
        }
        #expect(order.now == ["first 1", "first 2", "first 3", "renewal"])
    }

    @Test func aFullQueueIsRefusedAtOnceWithWhenToComeBack() async throws {
        // One worker, a check measured at 1 s, at most 2.5 s of waiting: the busy worker plus two queued checks fit,
        // a third would wait 3 s; a second renewal finds the renewals' queue (one per worker) full.
        let workers = BcryptWorkers(workers: 1, maxWait: 2.5, cost: 1)
        let gate = Gate()
        try await withThrowingTaskGroup(of: Void.self) { group in
            try await occupy(workers, until: gate, in: &group)
            for priority in [BcryptWorkers.Priority.first, .first, .background] {
                group.addTask { try await workers.run(priority) {} }
            }
            // Every one queued before the next is asked (a fixed 200 ms was not always enough on a loaded machine).
            try await eventually { workers.waiting == (first: 2, background: 1) }
            await #expect(throws: BcryptWorkers.Busy(retryAfter: 1)) { try await workers.run(.first) {} }
            await #expect(throws: BcryptWorkers.Busy.self) { try await workers.run(.background) {} }
            gate.release()
            try await group.waitForAll()
        }
        // Once the queue has drained, checks are taken again.
        try await workers.run(.first) {}
    }

    @Test func aRefusalNeverAsksToComeBackLaterThanTheLongestRetryAfter() async throws {
        // A check measured at 100 s with no waiting allowed: the queue would have room in 100 s, but the estimate is
        // of a busier moment than the one to come, so the crowd is asked back within `longestRetryAfter`.
        let workers = BcryptWorkers(workers: 1, maxWait: 0, cost: 100)
        #expect(workers.refusal(.first) == BcryptWorkers.Busy(retryAfter: Int(BcryptWorkers.longestRetryAfter)))
        await #expect(throws: BcryptWorkers.Busy(retryAfter: Int(BcryptWorkers.longestRetryAfter))) { try await workers.run(.first) {} }
        #expect(BcryptWorkers(workers: 1, maxWait: 60, cost: 0.01).refusal(.first) == nil)
    }

    @Test func aSignInRefusedForAFullQueueIsA503ThatCountsNoAttempt() async throws {
        let database = try await TestDatabase.create(prefix: "patron")
        // No wait allowed: every first check is refused.
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": database, "BCRYPT_QUEUE_SECONDS": "0"]))
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            for _ in 0..<8 {
                let refused = try await api.call(
                    .post,
                    "/auth/token",
                    headers: [.authorization: "Basic " + Data("20000000000004:1234".utf8).base64EncodedString()]
                )
                #expect(refused.status == .serviceUnavailable)
                #expect(refused.json["type"] as? String == "https://bookmobile.dev/problems/sign-in-busy", "\(refused.json)")
                #expect(refused.headers[.retryAfter] != nil)
            }
        }
        let failures = try await TestDatabase.query("SELECT count(*)::text FROM sign_in_failures", on: database)
        #expect(failures == ["0"], "a check the queue cannot take is refused before the throttle writes a row")
    }
}
