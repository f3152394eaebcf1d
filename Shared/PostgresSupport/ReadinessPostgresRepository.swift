import Hummingbird
import Logging
import PostgresNIO
import ServiceSupport

/// The database's answer to a readiness probe.
public struct ReadinessPostgresRepository: Sendable {
    let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

    /// Returns once the database answers a trivial query; throws after two seconds without an answer.
    public func ping(logger: Logger) async throws {
        try await withTimeout(seconds: 2) { _ = try await client.query("SELECT 1", logger: logger).collect() }
    }
}

extension HealthRoutes {
    /// Readiness of a service whose one dependency is its database: not ready at once while `watch` finds it away.
    public static func database(_ client: PostgresClient, watch: DatabaseWatch? = nil) -> ReadinessCheck {
        let repository = ReadinessPostgresRepository(client: client)
        return { logger in
            if let watch, !watch.isAnswering { throw DatabaseErrorProblem.unavailable }
            try await repository.ping(logger: logger)
        }
    }
}
