import Foundation
import Logging
import PostgresSupport
import ServiceLifecycle
import ServiceSupport

/// Deletes blobs that no book uses (left by a crash between a blob's write and its row, by a failed ingest, or by a
/// replaced edition) and temporary files of writes that were cut off: at start-up, then every `interval`. Safe with
/// several catalog replicas and with ingests under way (`BlobReferencePostgresRepository`).
struct BlobSweeper: Service {
    let blobs: any BlobStore
    let references: BlobReferencePostgresRepository
    let interval: TimeInterval
    /// A temporary file older than this belongs to no write under way.
    let temporaryMaxAge: TimeInterval
    let schema: SchemaReadiness
    let logger: Logger

    func run() async throws {
        try await PeriodicJob.run(every: interval, after: schema, logger: logger, failure: "Blob sweep failed") { try await sweep() }
    }

    /// One pass. Returns how many blobs and temporary files it removed.
    @discardableResult
    func sweep() async throws -> (blobs: Int, temporary: Int) {
        let (hashes, temporary) = blobs.inventory()
        var removedTemporary = 0
        for file in temporary where file.age > temporaryMaxAge {
            if (try? FileManager.default.removeItem(at: file.url)) != nil { removedTemporary += 1 }
        }
        var removed = 0
        var start = 0
        while start < hashes.count {
            let batch = Array(hashes[start..<min(hashes.count, start + 1000)])
            start += batch.count
            for hash in try await references.unreferenced(batch, logger: logger) {
                let store = blobs
                if try await references.removeIfUnreferenced(hash, logger: logger, remove: { store.remove(hash) }) { removed += 1 }
            }
        }
        if removed > 0 || removedTemporary > 0 {
            logger.info("Orphan blobs removed", metadata: ["blobs": "\(removed)", "temporary": "\(removedTemporary)"])
        }
        return (removed, removedTemporary)
    }
}
