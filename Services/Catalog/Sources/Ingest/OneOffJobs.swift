import Foundation
import Logging
import PostgresSupport
import ServiceSupport

/// The frame of a one-off job run from the command line: the catalog's parts, its pool running and its schema
/// migrated while `body` runs, and a "`what` N" progress line in the log after each batch.
enum OneOffJob {
    static func run<Result: Sendable>(
        config: ServiceConfig, what: Logger.Message, _ body: @Sendable (CatalogParts, _ progress: @escaping (Int) -> Void) async throws -> Result
    ) async throws -> (result: Result, seconds: Double) {
        let parts = try CatalogParts(config: config)
        let start = Date()
        let result = try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                await parts.postgres.run()
                return nil
            }
            try await applyMigrations(catalogMigrations, client: parts.postgres, logger: parts.logger)
            let result = try await body(parts) { count in
                parts.logger.info(what, metadata: ["count": "\(count)", "seconds": "\(Int(Date().timeIntervalSince(start)))"])
            }
            group.cancelAll()
            return result
        }
        return (result, Date().timeIntervalSince(start))
    }
}

/// `catalog generate-covers`: the one-off job that draws a cover for every book ingested without one before covers
/// were generated at ingest. Safe to run again, and beside running services (a book that gets a cover meanwhile
/// keeps it); patron learns of each new cover through the outbox, which the running catalog delivers.
public enum CoverBackfill {
    public static func run(config: ServiceConfig) async throws -> Int {
        let (done, seconds) = try await OneOffJob.run(config: config, what: "Covers drawn") { parts, progress in
            try await parts.ingester.generateMissingCovers(logger: parts.logger, progress: progress)
        }
        print("drew \(done) covers in \(String(format: "%.1f", seconds)) s")
        return done
    }
}

/// `catalog reread-metadata`: the one-off job that reads stored EPUBs again for what a newer reader derives from them
/// (accessibility metadata, page counts, series for books ingested before they were read). Safe to run again and
/// beside running services.
public enum MetadataReread {
    public static func run(config: ServiceConfig) async throws -> Int {
        let (result, seconds) = try await OneOffJob.run(config: config, what: "Books read again") { parts, progress in
            try await parts.ingester.rereadMetadata(logger: parts.logger, progress: progress)
        }
        print("read \(result.updated) books again (\(result.unreadable) unreadable) in \(String(format: "%.1f", seconds)) s")
        return result.updated
    }
}
