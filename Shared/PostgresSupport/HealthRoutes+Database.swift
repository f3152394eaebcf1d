import Hummingbird
import PostgresNIO
import ServiceSupport

extension HealthRoutes {
    /// Readiness of a service whose one dependency is its database.
    public static func database(_ client: PostgresClient) -> ReadinessCheck {
        { logger in
            try await withTimeout(seconds: 2) { _ = try await client.query("SELECT 1", logger: logger).collect() }
        }
    }
}
