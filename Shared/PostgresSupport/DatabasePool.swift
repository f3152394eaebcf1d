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
public struct DatabasePool: Sendable, Equatable {
    public var maximumConnections: Int
    /// Seconds between pings of an idle connection; nil for none.
    public var keepAlive: Double?

    public init(maximumConnections: Int = 20, keepAlive: Double? = nil) {
        self.maximumConnections = maximumConnections
        self.keepAlive = keepAlive
    }

    /// A service's pool, from `DATABASE_MAX_CONNECTIONS` and `DATABASE_KEEPALIVE`.
    public init(config: ServiceConfig) throws {
        let maximum = try config.int("DATABASE_MAX_CONNECTIONS", default: 20)
        guard maximum >= 1 else { throw ServiceConfig.Invalid(description: "DATABASE_MAX_CONNECTIONS must be at least 1") }
        let keepAlive = try config.duration("DATABASE_KEEPALIVE", default: 0)
        self.init(maximumConnections: maximum, keepAlive: keepAlive > 0 ? keepAlive : nil)
    }

    func apply(to options: inout PostgresClient.Configuration.Options) {
        options.maximumConnections = maximumConnections
        options.minimumConnections = 0
        options.keepAliveBehavior = keepAlive.map { .init(frequency: .milliseconds(Int64($0 * 1000))) }
    }
}
