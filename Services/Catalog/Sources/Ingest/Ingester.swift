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
        /// A new file with the ISBN of an existing book replaced that book's file (a new edition).
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
    }

    /// Ingests the EPUB at `file`. Throws `EPUBError` (422) for a refused file; leaves no row and no new blob on failure.
    func ingest(file: URL, options: Options, logger: Logger) async throws -> IngestResult {
        let sha = try DirectoryBlobStore.sha256(of: file)
        if let existing = try await books.detail(epubSHA256: sha, logger: logger) { return IngestResult(outcome: .unchanged, book: existing) }
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

        var created: [String] = []
        do {
            let epub = try blobs.put(file: file)
            if epub.created { created.append(epub.sha256) }
            func store(_ data: Data) throws -> String {
                let stored = try blobs.put(data)
                if stored.created { created.append(stored.sha256) }
                return stored.sha256
            }
            let images = StoredImages(
                coverSHA256: try parsed.cover.map { try store($0.data) }, thumbnailSHA256: try thumbnail.map { try store($0.data) },
                thumbnailType: thumbnail?.type)
            let (id, outcome) = try await books.insertOrReplace(parsed, epubSHA256: sha, epubSize: size, images: images, options: options, logger: logger)
            logger.info("Book ingested", metadata: ["book.id": "\(id)", "outcome": "\(outcome.rawValue)", "title": "\(parsed.title)"])
            guard let detail = try await books.detail(id: id, logger: logger) else { throw CancellationError() }
            return IngestResult(outcome: outcome, book: detail)
        } catch {
            for hash in created { blobs.remove(hash) }
            throw error
        }
    }
}
