import Foundation
import Logging
import PostgresSupport
import ServiceSupport

/// The frame of a one-off job run from the command line: the catalog's parts, its pool running and its schema
/// migrated while `body` runs, and a "`what` N" progress line in the log after each batch.
enum OneOffJob {
    static func run<Result: Sendable>(
        config: ServiceConfig,
        what: Logger.Message,
        _ body: @Sendable (CatalogDependencies, _ progress: @escaping (Int) -> Void) async throws -> Result
    ) async throws -> (result: Result, seconds: Double) {
        let parts = try CatalogDependencies(config: config)
        let start = Date()
        let result = try await parts.postgres.whileRunning {
            try await catalogSchema.apply(client: parts.postgres, logger: parts.logger)
            return try await body(parts) { count in
                parts.logger.info(what, metadata: ["count": "\(count)", "seconds": "\(Int(Date().timeIntervalSince(start)))"])
            }
        }
        return (result, Date().timeIntervalSince(start))
    }
}
