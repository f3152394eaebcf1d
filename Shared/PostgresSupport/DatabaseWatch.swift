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
/// A database that stops, restarts or drops its connections shows at once (the ping's connection fails); a ping
/// that is only slow counts as away after `timeout`, long enough that a busy machine (a test suite's load, a
/// benchmark) is not taken for an absent database: at 2 s, CI's load closed every gate of a run at once.
public final class DatabaseWatch: Service, Sendable {
    let configuration: PostgresConnection.Configuration
    let interval: Duration
    /// How long a ping may take before the database counts as away (a database that hangs without closing anything).
    let timeout: TimeInterval
    let logger: Logger
    private let away = Atomic<Bool>(false)

    public init(url: String, interval: Duration = .milliseconds(500), timeout: TimeInterval = 10, logger: Logger) throws {
        configuration = try DatabaseURL.connectionConfiguration(url)
        self.interval = interval
        self.timeout = timeout
        self.logger = logger
    }

    /// False from the first ping that failed until one succeeds again.
    public var isAnswering: Bool { !away.load(ordering: .relaxed) }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.watch() }
    }

    private func watch() async {
        var connectionID = 0
        while !Task.isCancelled {
            connectionID += 1
            do {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: connectionID, logger: logger)
                do {
                    while !Task.isCancelled {
                        try await withTimeout(seconds: timeout) { _ = try await connection.query("SELECT 1", logger: self.logger).collect() }
                        mark(answering: true)
                        try await Task.sleep(for: interval)
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch {
                if Task.isCancelled { break }
                mark(answering: false, error: error)
                try? await Task.sleep(for: interval)
            }
        }
    }

    private func mark(answering: Bool, error: (any Error)? = nil) {
        let wasAway = away.exchange(!answering, ordering: .relaxed)
        if wasAway && answering {
            logger.notice("The database answers again")
        } else if !wasAway && !answering {
            logger.warning("The database does not answer; requests get 503 until it does", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}
