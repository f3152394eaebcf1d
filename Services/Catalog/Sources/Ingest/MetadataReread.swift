import Foundation
import Logging
import PostgresSupport
import ServiceSupport

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
