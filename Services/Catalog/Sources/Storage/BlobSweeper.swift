import Foundation
import Logging
import PostgresSupport
import ServiceLifecycle
import ServiceSupport

/// Deletes blobs that no book uses (left by a crash between a blob's write and its row, by a failed ingest, or by a
/// replaced edition) and what cut-off writes left (temporary files, unfinished uploads): at start-up, then every
/// `interval`. Safe with several catalog replicas and with ingests under way (`BlobReferencePostgresRepository`).
/// With object storage, the pass also trims this replica's local copies to `cacheMaxBytes`.
struct BlobSweeper: Service {
    let blobs: any BlobStore
    let references: BlobReferencePostgresRepository
    let interval: TimeInterval
    /// A temporary file or an upload older than this belongs to no write under way.
    let temporaryMaxAge: TimeInterval
    let schema: SchemaReadiness
    let logger: Logger

    func run() async throws {
        try await PeriodicJob.run(every: interval, after: schema, logger: logger, failure: "Blob sweep failed") { try await sweep() }
    }

    /// One pass. Returns how many blobs and abandoned writes it removed.
    @discardableResult
    func sweep() async throws -> (blobs: Int, temporary: Int) {
        let removedTemporary = try await blobs.removeAbandonedWrites(olderThan: temporaryMaxAge)
        var removed = 0
        let store = blobs
        try await blobs.forEachStoredBatch { hashes in
            for hash in try await references.unreferenced(hashes, logger: logger) {
                if try await references.removeIfUnreferenced(hash, logger: logger, remove: { try await store.remove(hash) }) { removed += 1 }
            }
        }
        let trimmed = blobs.trimLocalCopies()
        if removed > 0 || removedTemporary > 0 || trimmed > 0 {
            logger.info(
                "Orphan blobs removed",
                metadata: ["blobs": "\(removed)", "temporary": "\(removedTemporary)", "local copies trimmed": "\(trimmed)"]
            )
        }
        return (removed, removedTemporary)
    }
}
