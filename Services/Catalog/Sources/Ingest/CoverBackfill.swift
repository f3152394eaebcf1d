import Foundation
import Logging
import PostgresSupport
import ServiceSupport

/// `catalog generate-covers`: the one-off job that draws a cover for every book ingested without one before covers
/// were generated at ingest. Safe to run again, and beside running services (a book that gets a cover meanwhile
/// keeps it); patron learns of each new cover through the outbox, which the running catalog delivers.
public enum CoverBackfill {
    public static func run(config: ServiceConfig) async throws -> Int {
        let parts = try CatalogParts(config: config)
        let start = Date()
        var done = 0
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await parts.postgres.run() }
            try await applyMigrations(catalogMigrations, client: parts.postgres, logger: parts.logger)
            done = try await parts.ingester.generateMissingCovers(logger: parts.logger) { count in
                parts.logger.info("Covers drawn", metadata: ["count": "\(count)", "seconds": "\(Int(Date().timeIntervalSince(start)))"])
            }
            group.cancelAll()
        }
        print("drew \(done) covers in \(String(format: "%.1f", Date().timeIntervalSince(start))) s")
        return done
    }
}
