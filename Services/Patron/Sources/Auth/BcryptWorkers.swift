import Dispatch
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
///   check at the lowest scheduling priority (`LowPriorityThread`), so that request handling gets the cores first.
/// - First checks (a patron waiting) are served in arrival order; background re-checks (the gateway renewing a verdict
///   it keeps) run only when no first check waits, and at most `workers` of them queue.
/// - A first check that would wait more than `maxWait` (the queue's length times the measured cost of one check, over
///   the workers) is refused at once with `Busy`, a 503 with `Retry-After` (when the queue should have room, at most
///   `longestRetryAfter`): never a timeout upstream.
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
    /// The longest `Retry-After` a refused check is given. The estimate of when the queue has room uses the cost of
    /// the last checks, measured while the crowd and the browsing share the cores; once the browsing eases, the queue
    /// empties far sooner, and a crowd told to come back in minutes waited for nothing (issue 49's crowd: patron idle
    /// for 50 s while 400 patrons waited out their Retry-After). A retry refused again costs patron a few milliseconds.
    static let longestRetryAfter = 10.0

    private struct Job {
        /// The check, run on a worker's low-priority thread; returns what hands its result to the waiting caller.
        let compute: @Sendable () -> @Sendable () -> Void
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
            let job = Job {
                let result = body()
                return { continuation.resume(returning: result) }
            }
            let admission = state.withLock { state -> (refusal: Busy?, startWorker: Bool) in
                if let refusal = refusal(priority, state) { return (refusal, false) }
                switch priority {
                case .first: state.first.append(job)
                case .background: state.background.append(job)
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

    /// The refusal a check asked now would get, or nil: lets a caller refuse before doing any other work for it (patron's
    /// sign-in throttle writes rows; a crowd's retries doing so held the database pool the verified patrons' checks use).
    func refusal(_ priority: Priority) -> Busy? {
        state.withLock { refusal(priority, $0) }
    }

    /// The checks waiting for a worker, by priority.
    var waiting: (first: Int, background: Int) { state.withLock { ($0.firstWaiting, $0.background.count) } }

    /// A first check that would wait past `maxWait`, or a background one beyond `workers` queued, is refused.
    private func refusal(_ priority: Priority, _ state: State) -> Busy? {
        switch priority {
        case .first:
            let wait = Double(state.firstWaiting + 1) * state.cost / Double(workers)
            guard wait > maxWait else { return nil }
            return Busy(retryAfter: max(1, Int(min(Self.longestRetryAfter, wait - maxWait).rounded(.up))))
        case .background:
            guard state.background.count >= workers else { return nil }
            return Busy(retryAfter: max(1, Int(state.cost.rounded(.up))))
        }
    }

    /// A worker: jobs until none is left. The worker's thread keeps normal priority and takes every lock (the queue's,
    /// the executor's when it resumes a caller, the metrics'); the check itself runs on a thread of its own at the
    /// lowest priority, which touches nothing shared but two semaphores. When the low-priority thread took the queue's
    /// lock itself, a request that needed the lock (a sign-in's admission) waited until that thread got a core back,
    /// which busy cores gave it rarely: a priority inversion that stalled patron's two executor threads, and with them
    /// every verified patron's check, for up to 370 ms (docs/PERFORMANCE.md, issue 49).
    private func work() {
        let lowPriority = LowPriorityThread()
        defer { lowPriority.finish() }
        while let job = state.withLock({ state -> Job? in
            if let job = state.next() {
                queued.record(state.firstWaiting + state.background.count)
                return job
            }
            state.running -= 1
            return nil
        }) {
            let started = ContinuousClock.now
            let handBack = lowPriority.run(job.compute)
            let elapsed = ContinuousClock.now - started
            handBack()
            checkSeconds.recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            state.withLock { $0.cost = $0.cost * 0.8 + seconds * 0.2 }
        }
    }
}

/// A thread at the lowest scheduling priority that runs one closure at a time for the thread that owns it, and naps
/// for `nap` every `napEvery` while it does.
///
/// Why the naps: a core busy with a `SCHED_IDLE` thread never goes idle, and Linux moves a waiting thread to another
/// core when that core goes idle, else only at its next periodic balance, tens of milliseconds later. With both cores
/// running bcrypt, request threads queued behind one another on one core: the paced browsing's p99 went from 9-18 ms
/// to 50-108 ms beside two `SCHED_IDLE` busy loops, and back to 12-19 ms when each loop napped 0.3 ms every 10 ms
/// (docs/PERFORMANCE.md, issue 49). The check is C code with no place to pause, so the owner, waiting anyway, sends
/// the thread a signal whose handler naps: 3 % of the check's time.
private final class LowPriorityThread: @unchecked Sendable {
    static let napEvery = DispatchTimeInterval.milliseconds(10)
    static let nap = timespec(tv_sec: 0, tv_nsec: 300_000)

    // Written by the owner before `start` is signalled and read after `done` is waited for: the semaphores order them.
    private var work: (@Sendable () -> @Sendable () -> Void)?
    private var handBack: (@Sendable () -> Void)?
    private let start = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    #if canImport(Glibc)
    /// The thread, written before `ready` is signalled.
    private var thread = pthread_t()
    #endif

    init() {
        let ready = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            #if canImport(Glibc)
            Self.napOnSignal
            thread = pthread_self()
            var signals = sigset_t()
            sigemptyset(&signals)
            sigaddset(&signals, SIGURG)
            pthread_sigmask(SIG_UNBLOCK, &signals, nil)
            // On Linux scheduling is per thread: this changes only this one. SCHED_IDLE (5): it runs when no other
            // thread wants the core, and any other that wakes takes the core at once (nice 10 where not allowed).
            var parameters = sched_param(sched_priority: 0)
            if sched_setscheduler(0, 5, &parameters) != 0 { _ = nice(10) }
            #endif
            ready.signal()
            while true {
                start.wait()
                guard let work else { return }
                handBack = work()
                done.signal()
            }
        }
        ready.wait()
    }

    #if canImport(Glibc)
    /// SIGURG (ignored unless handled, and nothing else here uses it) makes the thread it is sent to nap.
    private static let napOnSignal: Void = {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            var nap = LowPriorityThread.nap
            nanosleep(&nap, nil)
        }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        sigaction(SIGURG, &action, nil)
    }()
    #endif

    /// `work` run on the low-priority thread; its result returned to the caller's thread.
    func run(_ work: @escaping @Sendable () -> @Sendable () -> Void) -> @Sendable () -> Void {
        self.work = work
        start.signal()
        while done.wait(timeout: .now() + Self.napEvery) == .timedOut {
            #if canImport(Glibc)
            pthread_kill(thread, SIGURG)
            #endif
        }
        return handBack ?? {}
    }

    /// Ends the thread.
    func finish() {
        work = nil
        start.signal()
    }
}
