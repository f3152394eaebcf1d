import Foundation
import PostgresNIO
import ServiceSupport

/// How many connections a service opens to its database, and whether idle ones are pinged.
///
/// No pings by default (`DATABASE_KEEPALIVE` 0): PostgresNIO sets a connection's keep-alive timer again each time a
/// request hands the connection back, which cost patron a sixth of its CPU on `/me` (docs/PERFORMANCE.md, session 21).
/// A server that closes a connection (restart, `pg_terminate_backend`) says so and the pool replaces it; pings only find
/// connections that a network in between drops silently (NAT, firewalls): set `DATABASE_KEEPALIVE` for such a network.
///
/// Connections are opened as requests need them (no minimum kept open). A minimum would also spare each request the
/// idle-timeout timer that PostgresNIO sets on a connection above it (another sixth), but PostgresNIO 1.33.2 stops the
/// process on a precondition (`createNewDemandConnectionIfPossible`) when a request comes while fewer than the minimum
/// are open, as after PostgreSQL restarts (seen in `FaultTests.servicesReconnectWhenPostgreSQLRestarts`).
///
/// How many at most depends on what the statements wait for (`init(config:defaultMaximum:)`): PostgreSQL runs each
/// connection's statement in a process of its own, so past what its cores can run at once, statements only take turns
/// on them and the slowest answers wait longest; a request waiting for a connection here waits in order instead.
public struct DatabasePool: Sendable, Equatable {
    public var maximumConnections: Int
    /// Seconds between pings of an idle connection; nil for none.
    public var keepAlive: Double?

    /// Patron's default, and any pool's that is not told (tests): its writes wait for the disk, so more at once serve more.
    public static let writesDefaultMaximum = 20

    public init(maximumConnections: Int = writesDefaultMaximum, keepAlive: Double? = nil) {
        self.maximumConnections = maximumConnections
        self.keepAlive = keepAlive
    }

    /// A service's pool, from `DATABASE_MAX_CONNECTIONS` (`defaultMaximum` when unset) and `DATABASE_KEEPALIVE`.
    public init(config: ServiceConfig, defaultMaximum: Int = writesDefaultMaximum) throws {
        let maximum = try config.int("DATABASE_MAX_CONNECTIONS", default: defaultMaximum)
        guard maximum >= 1 else { throw ServiceConfig.Invalid(description: "DATABASE_MAX_CONNECTIONS must be at least 1") }
        let keepAlive = try config.duration("DATABASE_KEEPALIVE", default: 0)
        self.init(maximumConnections: maximum, keepAlive: keepAlive > 0 ? keepAlive : nil)
    }

    /// The default for a service whose statements are reads that keep a core busy from start to end (catalog's
    /// feeds and searches): two per core, and two more for the statements whose answers are on their way (catalog's
    /// shelf-copy listener keeps one). With PostgreSQL on the same two cores, catalog's 20 connections gave a cold lane
    /// page at a million books a p99 of 50-57 ms and a random-word search 134-371 ms; 6 gave 35-40 and 67-80 ms at the
    /// same throughput (docs/PERFORMANCE.md, session 22). Patron keeps 20: its writes wait for the disk to flush, and
    /// fewer connections served fewer borrows.
    public static var readsDefaultMaximum: Int { 2 * ProcessInfo.processInfo.activeProcessorCount + 2 }

    func apply(to options: inout PostgresClient.Configuration.Options) {
        options.maximumConnections = maximumConnections
        options.minimumConnections = 0
        options.keepAliveBehavior = keepAlive.map { .init(frequency: .milliseconds(Int64($0 * 1000))) }
    }
}
