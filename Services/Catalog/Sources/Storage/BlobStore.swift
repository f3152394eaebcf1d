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

/// Content-addressed storage of EPUB files and images (SHA-256 of the bytes).
protocol BlobStore: Sendable {
    /// Stores `data` (or `file`) and returns its hash and whether it was new.
    func put(_ data: Data) throws -> (sha256: String, created: Bool)
    func put(file: URL) throws -> (sha256: String, created: Bool)
    func url(for sha256: String) -> URL
    func remove(_ sha256: String)
    /// Every stored blob's hash, and the temporary files of writes under way or cut off, with their age.
    func inventory() -> (blobs: [String], temporary: [(url: URL, age: TimeInterval)])
    /// The blob's file, its bytes checked against its name the first time this process serves it: a blob torn
    /// by a power loss or damaged on disk is set aside (the next ingest of the same file writes it again) and
    /// `BlobDamaged` thrown, never served.
    func verified(_ sha256: String) async throws -> URL
}

extension BlobStore {
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
