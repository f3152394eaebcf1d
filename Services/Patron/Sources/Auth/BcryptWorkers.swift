import Foundation
import Metrics
import ServiceSupport
import Shared
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// bcrypt work (checking and hashing PINs and passwords) on a bounded set of threads of its own, so that a crowd of
/// first sign-ins cannot stall the rest of patron. Before, each check went to a concurrent Dispatch queue: 200 apps
/// opening in the same minute made 200 threads of bcrypt, and every other request (the gateway's cheap checks of
/// verified patrons among them) waited for a share of the cores (docs/PERFORMANCE.md, issue 49).
///
/// - At most `workers` checks run at once, on threads started when work arrives and ended when none is left, each
///   at a lower scheduling priority (nice 10), so that request handling still gets the cores while they work.
/// - First checks (a patron waiting) are served in arrival order; background re-checks (the gateway renewing a verdict
///   it keeps) run only when no first check waits, and at most `workers` of them queue.
/// - A first check that would wait more than `maxWait` (the queue's length times the measured cost of one check, over
///   the workers) is refused at once with `Busy`, a 503 with `Retry-After`: never a timeout upstream.
final class BcryptWorkers: Sendable {
    enum Priority: Sendable {
        case first
        case background
    }

    /// The queue is full: try again in `retryAfter` seconds.
    struct Busy: ProblemConvertible, Equatable {
        let retryAfter: Int

        var problem: Problem {
            Problem(
                status: 503,
                slug: "sign-in-busy",
                title: "Service unavailable",
                detail: "Too many sign-ins are being checked at once; try again in \(retryAfter) s",
                retryAfter: retryAfter
            )
        }
    }

    let workers: Int
    let maxWait: Double

    private struct Job {
        let run: @Sendable () -> Void
    }

    private struct State {
        var first: [Job] = []
        var firstHead = 0
        var background: [Job] = []
        var running = 0
        /// Seconds one check takes, a moving average of the last ones.
        var cost: Double

        var firstWaiting: Int { first.count - firstHead }

        mutating func next() -> Job? {
            if firstHead < first.count {
                let job = first[firstHead]
                firstHead += 1
                if firstHead > 64, firstHead * 2 > first.count {
                    first.removeFirst(firstHead)
                    firstHead = 0
                }
                return job
            }
            return background.isEmpty ? nil : background.removeFirst()
        }
    }

    private let state: Mutex<State>
    private let checkSeconds = Timer(label: "bookmobile_bcrypt_seconds")
    private let queued = Gauge(label: "bookmobile_bcrypt_queued")
    private let refused = Counter(label: "bookmobile_bcrypt_refused_total")

    /// `cost`: the seconds of one check, until checks measure it.
    init(workers: Int, maxWait: Double, cost: Double) {
        self.workers = max(1, workers)
        self.maxWait = maxWait
        state = Mutex(State(cost: cost))
    }

    /// `body`'s result, computed on one of the workers.
    func run<T: Sendable>(_ priority: Priority, _ body: @escaping @Sendable () -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            let job = Job { continuation.resume(returning: body()) }
            let admission = state.withLock { state -> (refusal: Busy?, startWorker: Bool) in
                switch priority {
                case .first:
                    let wait = Double(state.firstWaiting + 1) * state.cost / Double(workers)
                    if wait > maxWait { return (Busy(retryAfter: max(1, Int((wait - maxWait).rounded(.up)))), false) }
                    state.first.append(job)
                case .background:
                    if state.background.count >= workers { return (Busy(retryAfter: max(1, Int(state.cost.rounded(.up)))), false) }
                    state.background.append(job)
                }
                queued.record(state.firstWaiting + state.background.count)
                guard state.running < workers else { return (nil, false) }
                state.running += 1
                return (nil, true)
            }
            if let refusal = admission.refusal {
                refused.increment()
                continuation.resume(throwing: refusal)
            } else if admission.startWorker {
                Thread.detachNewThread { self.work() }
            }
        }
    }

    /// A worker: jobs until none is left.
    private func work() {
        #if canImport(Glibc)
        // On Linux a thread's nice value is its own: this lowers only the calling thread's priority.
        _ = nice(10)
        #endif
        while let job = state.withLock({ state -> Job? in
            if let job = state.next() {
                queued.record(state.firstWaiting + state.background.count)
                return job
            }
            state.running -= 1
            return nil
        }) {
            let started = ContinuousClock.now
            job.run()
            let elapsed = ContinuousClock.now - started
            checkSeconds.recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            state.withLock { $0.cost = $0.cost * 0.8 + seconds * 0.2 }
        }
    }
}
