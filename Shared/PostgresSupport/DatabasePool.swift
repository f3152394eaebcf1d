import PostgresNIO
import ServiceSupport

/// How many connections a service keeps to its database, and whether idle ones are pinged.
///
/// A service keeps its whole pool open (`DATABASE_MIN_CONNECTIONS` defaults to `DATABASE_MAX_CONNECTIONS`) and pings
/// none (`DATABASE_KEEPALIVE` 0): PostgresNIO gives every connection above the minimum an idle timer, and every
/// connection a keep-alive timer when pings are on, each set again whenever a request hands its connection back.
/// Those timers cost patron a third of its CPU on `/me` (docs/PERFORMANCE.md, session 21). A server that closes a
/// connection (restart, `pg_terminate_backend`) says so and the pool replaces it; pings only find connections that a
/// network in between drops silently (NAT, firewalls): set `DATABASE_KEEPALIVE` for such a network.
public struct DatabasePool: Sendable, Equatable {
    public var maximumConnections: Int
    public var minimumConnections: Int
    /// Seconds between pings of an idle connection; nil for none.
    public var keepAlive: Double?

    public init(maximumConnections: Int = 20, minimumConnections: Int = 0, keepAlive: Double? = nil) {
        self.maximumConnections = maximumConnections
        self.minimumConnections = minimumConnections
        self.keepAlive = keepAlive
    }

    /// A short-lived client's pool (a command, a test's helper): connections opened as needed.
    public static let onDemand = DatabasePool()

    /// A service's pool, from `DATABASE_MAX_CONNECTIONS`, `DATABASE_MIN_CONNECTIONS` and `DATABASE_KEEPALIVE`.
    public init(config: ServiceConfig) throws {
        let maximum = try config.int("DATABASE_MAX_CONNECTIONS", default: 20)
        guard maximum >= 1 else { throw ServiceConfig.Invalid(description: "DATABASE_MAX_CONNECTIONS must be at least 1") }
        let minimum = try config.int("DATABASE_MIN_CONNECTIONS", default: maximum)
        guard (0...maximum).contains(minimum) else {
            throw ServiceConfig.Invalid(description: "DATABASE_MIN_CONNECTIONS must be between 0 and DATABASE_MAX_CONNECTIONS (\(maximum))")
        }
        let keepAlive = try config.duration("DATABASE_KEEPALIVE", default: 0)
        self.init(maximumConnections: maximum, minimumConnections: minimum, keepAlive: keepAlive > 0 ? keepAlive : nil)
    }

    func apply(to options: inout PostgresClient.Configuration.Options) {
        options.maximumConnections = maximumConnections
        options.minimumConnections = minimumConnections
        options.keepAliveBehavior = keepAlive.map { .init(frequency: .milliseconds(Int64($0 * 1000))) }
    }
}
