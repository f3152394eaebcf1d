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

/// `catalog reread-metadata`: the one-off job that reads stored EPUBs again for what a newer reader derives from them
/// (accessibility metadata and page counts for books ingested before they were read). Safe to run again and beside
/// running services.
public enum MetadataReread {
    public static func run(config: ServiceConfig) async throws -> Int {
        let parts = try CatalogParts(config: config)
        let start = Date()
        var result = (updated: 0, unreadable: 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await parts.postgres.run() }
            try await applyMigrations(catalogMigrations, client: parts.postgres, logger: parts.logger)
            result = try await parts.ingester.rereadMetadata(logger: parts.logger) { count in
                parts.logger.info("Books read again", metadata: ["count": "\(count)", "seconds": "\(Int(Date().timeIntervalSince(start)))"])
            }
            group.cancelAll()
        }
        print("read \(result.updated) books again (\(result.unreadable) unreadable) in \(String(format: "%.1f", Date().timeIntervalSince(start))) s")
        return result.updated
    }
}
