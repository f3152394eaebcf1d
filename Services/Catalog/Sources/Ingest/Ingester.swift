import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// The result of ingesting one file.
struct IngestResult: Encodable, Sendable {
    enum Outcome: String, Encodable, Sendable {
        /// A new book.
        case created
        /// The same file was ingested before; nothing changed.
        case unchanged
        /// A new file with the ISBN of an existing book replaced that book's file (a new edition), as asked.
        case newEdition = "new_edition"
    }

    var outcome: Outcome
    var book: BookDetail
}

/// The blobs of a book's cover and its thumbnail.
struct StoredImages: Sendable {
    var coverSHA256: String?
    var thumbnailSHA256: String?
    var thumbnailType: String?
}

/// Ingests EPUB files: parse, store the blobs, write the book and queue its licence for patron, all or nothing.
struct Ingester: Sendable {
    let client: PostgresClient
    let blobs: any BlobStore
    let books: BookPostgresRepository

    struct Options: Sendable {
        var copies = 1
        var openAccess = false
        var featured = false
        /// Whether a file with the ISBN of an existing book replaces that book (a new edition); otherwise it is refused.
        var replace = false
    }

    /// Ingests the EPUB at `file`. Throws `EPUBError` (422) for a refused file; leaves no row on failure (a blob it
    /// wrote goes with the next `BlobSweeper` pass).
    func ingest(file: URL, options: Options, logger: Logger) async throws -> IngestResult {
        let sha = try DirectoryBlobStore.sha256(of: file)
        if let existing = try await books.detail(epubSHA256: sha, logger: logger) {
            // The same file again writes its blob again if the stored one was found damaged and set aside.
            _ = try blobs.put(file: file)
            return IngestResult(outcome: .unchanged, book: existing)
        }
        var parser = try EPUBParser(url: file)
        var parsed = try parser.parse()
        var thumbnail: CoverThumbnail?
        if let cover = parsed.cover {
            // nil for a cover that is small already: `/cover?size=thumbnail` then serves the cover itself.
            do {
                thumbnail = try CoverThumbnail.make(from: cover.data)
            } catch {
                parsed.warnings.append("no thumbnail of the cover: \(error)")
            }
        }
        let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0

        let images = StoredImages(
            coverSHA256: parsed.cover.map { DirectoryBlobStore.sha256(of: $0.data) },
            thumbnailSHA256: thumbnail.map { DirectoryBlobStore.sha256(of: $0.data) }, thumbnailType: thumbnail?.type)
        let blobs = self.blobs
        let cover = parsed.cover?.data
        let thumbnailData = thumbnail?.data
        // The blobs are written inside the row's transaction, under their shared locks, so that the orphan sweep
        // cannot take them before the row that uses them is committed; a failure leaves them to the sweep.
        let (id, outcome) = try await books.insertOrReplace(
            parsed, epubSHA256: sha, epubSize: size, images: images, options: options, logger: logger
        ) {
            _ = try blobs.put(file: file)
            if let cover { _ = try blobs.put(cover) }
            if let thumbnailData { _ = try blobs.put(thumbnailData) }
        }
        logger.info("Book ingested", metadata: ["book.id": "\(id)", "outcome": "\(outcome.rawValue)", "title": "\(parsed.title)"])
        guard let detail = try await books.detail(id: id, logger: logger) else { throw CancellationError() }
        return IngestResult(outcome: outcome, book: detail)
    }
}
