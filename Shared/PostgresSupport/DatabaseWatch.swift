import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import ServiceSupport
import Synchronization

/// Whether the service's database answers, asked every `interval` over a connection of the watch's own (never queued
/// behind the pool's requests). While it does not, `DatabaseGateMiddleware` answers 503 at once and readiness says not
/// ready: without the watch, requests would wait in the pool, which waits up to a minute for a server that refuses
/// connections (PostgresNIO's circuit breaker) before failing them. The pool itself reconnects on its own backoff
/// (a second or two after a short outage), so requests let through again find a connection soon after.
///
/// A database that stops, restarts or drops its connections shows at once: the ping's connection fails, or, when a
/// ping does not answer within `suspectAfter` (a query whose connection closed under it can wait forever in
/// PostgresNIO: `withTimeout`), a fresh connection is tried, and a refused one is an outage. A ping that is only slow
/// counts as away after `timeout`, long enough that a busy machine (a test suite's load, a benchmark) is not taken for
/// an absent database: at 2 s, CI's load closed every gate of a run at once.
///
/// Requests already under way when the database goes away or drops the watch's connection (`cutOffAtOutage`) are
/// answered 503 with `Retry-After` `grace` later if they have not finished: some of them wait on such a connection forever, and the client would wait
/// for the gateway's own time limit (30 s) and a 504 (issue 68: 4 of 14,457 requests in a borrow storm).
public final class DatabaseWatch: Service, Sendable {
    let configuration: PostgresConnection.Configuration
    let interval: Duration
    /// How long a ping may take before the database counts as away (a database that hangs without closing anything).
    let timeout: TimeInterval
    /// How long a ping may take before a fresh connection is tried.
    let suspectAfter: TimeInterval
    /// How long requests under way when the database went away may still finish before they are answered 503.
    let grace: Duration
    let logger: Logger
    private let away = Atomic<Bool>(false)
    private let underWay = WorkUnderWay<Int>()

    public init(
        url: String,
        interval: Duration = .milliseconds(500),
        timeout: TimeInterval = 10,
        suspectAfter: TimeInterval = 3,
        grace: Duration = .seconds(5),
        logger: Logger
    ) throws {
        configuration = try DatabaseURL.connectionConfiguration(url)
        self.interval = interval
        self.timeout = timeout
        self.suspectAfter = suspectAfter
        self.grace = grace
        self.logger = logger
    }

    /// False from the first ping that failed until one succeeds again.
    public var isAnswering: Bool { !away.load(ordering: .relaxed) }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.watch() }
    }

    /// `work`'s result; or, when the database goes away while it runs and it has not finished `grace` later, the 503
    /// problem (the work is cancelled and left behind: it may never end).
    public func cutOffAtOutage<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await underWay.run(0, cutOffError: { DatabaseErrorProblem.unavailable }, work)
    }

    /// How many requests are under way through `cutOffAtOutage`.
    public var requestsUnderWay: Int { underWay.count }

    private func watch() async {
        var connectionID = 0
        var connection: PostgresConnection?
        while !Task.isCancelled {
            do {
                if connection == nil {
                    connectionID += 1
                    connection = try await connect(id: connectionID)
                }
                guard let current = connection else { continue }
                do {
                    try await withTimeout(seconds: suspectAfter) { _ = try await current.query("SELECT 1", logger: self.logger).collect() }
                } catch is TimeoutError {
                    // Slow, or waiting on a connection closed under it: a fresh connection tells which (refused, or the
                    // server shutting down, is an outage; slow again is one only past `timeout`). A connection closed
                    // under the ping was dropped by the server (terminated, restarted): requests under way may wait
                    // on one like it, and are cut off as at an outage.
                    if current.isClosed { cutOffUnderWay() }
                    connectionID += 1
                    let id = connectionID
                    // A connection that arrives after the time limit is closed, never dropped open (PostgresNIO
                    // asserts that every connection is closed before it goes).
                    let fresh = Handover<PostgresConnection>()
                    do {
                        try await withTimeout(seconds: timeout) {
                            let made = try await self.connect(id: id)
                            if !fresh.give(made) { try? await made.close() }
                        }
                    } catch {
                        if let late = fresh.abandon() { Task { try? await late.close() } }
                        throw error
                    }
                    connection = fresh.abandon()
                    Task { try? await current.close() }
                }
                mark(answering: true)
                try await Task.sleep(for: interval)
            } catch {
                if Task.isCancelled { break }
                if let lost = connection { Task { try? await lost.close() } }
                connection = nil
                // A lost connection (the server terminated it, or went away): requests under way may wait on one too.
                if isAnswering { cutOffUnderWay() }
                mark(answering: false, error: error)
                try? await Task.sleep(for: interval)
            }
        }
        if let connection { try? await connection.close() }
    }

    /// A new connection that answered a ping.
    private func connect(id: Int) async throws -> PostgresConnection {
        let connection = try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
        do {
            _ = try await connection.query("SELECT 1", logger: logger).collect()
        } catch {
            try? await connection.close()
            throw error
        }
        return connection
    }

    private func mark(answering: Bool, error: (any Error)? = nil) {
        let wasAway = away.exchange(!answering, ordering: .relaxed)
        if wasAway && answering {
            logger.notice("The database answers again")
        } else if !wasAway && !answering {
            logger.warning("The database does not answer; requests get 503 until it does", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// The requests under way now get `grace` to finish, then the 503.
    private func cutOffUnderWay() {
        let ids = underWay.now()
        guard !ids.isEmpty else { return }
        Task { [grace, logger] in
            try? await Task.sleep(for: grace)
            let left = self.underWay.cutOff(ids)
            if left > 0 { logger.warning("Requests under way when the database went away answered 503", metadata: ["count": "\(left)"]) }
        }
    }
}

/// A value handed from a task that may finish after its waiter gave up: `give` says whether the waiter will take it (the
/// giver disposes of it otherwise), `abandon` takes what was given and refuses anything later.
final class Handover<Value: Sendable>: Sendable {
    private let state = Mutex<(value: Value?, abandoned: Bool)>((nil, false))

    func give(_ value: Value) -> Bool {
        state.withLock { state in
            guard !state.abandoned else { return false }
            state.value = value
            return true
        }
    }

    func abandon() -> Value? {
        state.withLock { state in
            state.abandoned = true
            defer { state.value = nil }
            return state.value
        }
    }
}
