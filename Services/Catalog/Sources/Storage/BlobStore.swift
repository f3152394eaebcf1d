import Crypto
import Foundation
import Logging
import Metrics
import NIOPosix
import ServiceSupport
import Shared
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Content-addressed storage of EPUB files and images (SHA-256 of the bytes): a local folder (`DirectoryBlobStore`)
/// or S3-compatible object storage (`S3BlobStore`), chosen by `BLOB_STORE`.
protocol BlobStore: Sendable {
    /// Stores `data` (or `file`) and returns its hash and whether it was new.
    func put(_ data: Data) async throws -> (sha256: String, created: Bool)
    func put(file: URL) async throws -> (sha256: String, created: Bool)
    func remove(_ sha256: String) async throws
    /// Every stored blob's hash, a batch (up to a thousand or so) at a time.
    func forEachStoredBatch(_ body: ([String]) async throws -> Void) async throws
    /// Removes what writes that were cut off left behind (temporary files, unfinished uploads) once older than `age`;
    /// returns how many.
    func removeAbandonedWrites(olderThan age: TimeInterval) async throws -> Int
    /// A local file with the blob's bytes, checked against its name the first time this process serves it: a blob torn
    /// by a power loss or damaged in storage is set aside (the next ingest of the same file writes it again) and
    /// `BlobDamaged` thrown, never served.
    func verified(_ sha256: String) async throws -> URL
    /// Where a client can fetch the blob itself for a few minutes (`BLOB_REDIRECT=presigned`), or nil to send it.
    func redirect(for sha256: String) -> String?
    /// Keeps local copies of remote blobs within their bound; returns how many went.
    func trimLocalCopies() -> Int
}

extension BlobStore {
    func redirect(for sha256: String) -> String? { nil }
    func trimLocalCopies() -> Int { 0 }

    /// `verified(_:)` for a response: a damaged or missing blob is logged and answered 503 (the file must be
    /// ingested again), never a 500 or damaged bytes.
    func served(_ sha256: String, logger: Logger) async throws -> URL {
        do {
            return try await verified(sha256)
        } catch let damaged as BlobDamaged {
            logger.error("Stored file damaged; ingest it again", metadata: ["blob": "\(sha256)", "missing": "\(damaged.missing)"])
            Counter(label: "bookmobile_blobs_damaged_total").increment()
            throw Problem(
                status: 503,
                slug: "file-damaged",
                title: "Service unavailable",
                detail: "This file is damaged on the server and was set aside; the library has to ingest it again"
            )
        }
    }
}
