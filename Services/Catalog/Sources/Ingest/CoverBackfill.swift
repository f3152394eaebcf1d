import Foundation
import Logging
import PostgresSupport
import ServiceSupport

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
