import Foundation
import Logging
import ServiceSupport
import Shared

/// `catalog migrate-blobs`: copies every blob of a local folder (`--from`, else `BLOB_DIR`) into the object storage
/// `BLOB_STORE` names, a few at a time, with a progress line every hundred. Safe to repeat and to interrupt: a blob
/// already in the bucket is not sent again, and each is whole or absent there. A blob whose bytes no longer match
/// its name is counted and left behind (its book must be ingested again).
public enum BlobMigration {
    public struct Summary: Sendable, Equatable {
        public var copied = 0
        public var alreadyThere = 0
        public var damaged = 0
    }

    public static func run(config: ServiceConfig, from folder: String? = nil, concurrency: Int = 4) async throws -> Summary {
        let settings = try CatalogSettings(config: config)
        guard let location = settings.objectStorage else {
            throw ServiceConfig.Invalid(description: "migrate-blobs copies blobs into object storage: set BLOB_STORE=s3://bucket/prefix and S3_*")
        }
        let logger = Observability.logger(service: "catalog", config: config)
        let source = try DirectoryBlobStore(root: folder.map { URL(fileURLWithPath: $0) } ?? settings.blobDirectory)
        // Nothing is read into the target's local copies: the source folder stands in for them.
        let target = S3BlobStore(client: S3Client(location: location), cache: source, logger: logger)
        try await target.probe()
        logger.info("Copying blobs", metadata: ["from": "\(source.root.path)", "to": "\(location.description)"])
        let start = Date()
        var summary = Summary()
        var seen = 0
        try await source.forEachStoredBatch { hashes in
            for first in stride(from: 0, to: hashes.count, by: max(1, concurrency)) {
                let slice = hashes[first..<min(hashes.count, first + max(1, concurrency))]
                try await withThrowingTaskGroup(of: Bool?.self) { group in
                    for hash in slice {
                        group.addTask {
                            guard let file = await source.soundCopy(hash) else {
                                logger.warning("Blob damaged; not copied (ingest its book again)", metadata: ["blob": "\(hash)"])
                                return nil
                            }
                            return try await target.put(file: file).created
                        }
                    }
                    for try await outcome in group {
                        switch outcome {
                        case true?: summary.copied += 1
                        case false?: summary.alreadyThere += 1
                        case nil: summary.damaged += 1
                        }
                        seen += 1
                        if seen % 100 == 0 { logger.info("Blobs copied", metadata: progress(summary, since: start)) }
                    }
                }
            }
        }
        logger.info("Blobs copied: done", metadata: progress(summary, since: start))
        return summary
    }

    private static func progress(_ summary: Summary, since start: Date) -> Logger.Metadata {
        [
            "copied": "\(summary.copied)", "already there": "\(summary.alreadyThere)", "damaged": "\(summary.damaged)",
            "seconds": "\(Int(Date().timeIntervalSince(start)))",
        ]
    }
}
