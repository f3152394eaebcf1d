import Foundation
import Logging
import NIOPosix
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// Ingests books' files (EPUBs, PDFs, audiobooks): read, store the blobs, write the book and queue its licence for patron, all or nothing.
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

    /// Bounds of an audiobook (tracks, hours) and of a PDF (pages).
    var audiobookLimits = AudiobookPackager.Limits()
    var pdfLimits = PDFReader.Limits()

    /// Ingests the book at `file`: an EPUB, a PDF, or an audiobook (an M4B or MP3 file, a ZIP of tracks, a Readium
    /// audiobook package, or from the bulk CLI a folder of tracks), told apart by their bytes (`UploadKind`). Throws
    /// `EPUBError` or `MediaError` (422) for a refused file; leaves no row on failure (a blob it wrote goes with the
    /// next `BlobSweeper` pass).
    func ingest(file: URL, options: Options, logger: Logger) async throws -> IngestResult {
        // Hashing, parsing, probing and drawing covers take tens of milliseconds of CPU and file reads (seconds for an
        // audiobook): on NIO's thread pool, not on one of Swift's cooperative threads (two on a two-core machine),
        // which every request shares.
        let kind = try await NIOThreadPool.singleton.runIfActive { try UploadKind.of(file) }
        guard kind == .epub else { return try await ingestMedia(file: file, kind: kind, options: options, logger: logger) }
        let sha = try await NIOThreadPool.singleton.runIfActive { try BlobHash.of(file: file) }
        if let existing = try await unchanged(file, sha: sha, logger: logger) { return existing }
        let (parsed, covers) = try await NIOThreadPool.singleton.runIfActive { [self] in
            var parser = try EPUBParser(url: file)
            var parsed = try parser.parse()
            let covers = coverImages(for: &parsed, logger: logger)
            return (parsed, covers)
        }
        return try await store(file, sha: sha, parsed, covers: covers, options: options, logger: logger)
    }

    /// A PDF as uploaded, or an audiobook as the package `AudiobookPackager` makes of it, in a work folder of its own.
    private func ingestMedia(file: URL, kind: UploadKind, options: Options, logger: Logger) async throws -> IngestResult {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("ingest-work-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let (stored, parsed) = try await NIOThreadPool.singleton.runIfActive { [self] in
            if kind == .pdf {
                return (file, try PDFReader(limits: pdfLimits, work: work).read(file).book)
            }
            let packaged = try AudiobookPackager(limits: audiobookLimits, work: work).package(file, kind: kind)
            var book = packaged.book
            book.cover = packaged.cover
            return (packaged.package, book)
        }
        let sha = try await NIOThreadPool.singleton.runIfActive { try BlobHash.of(file: stored) }
        if let existing = try await unchanged(stored, sha: sha, logger: logger) { return existing }
        let (book, covers) = try await NIOThreadPool.singleton.runIfActive { [self] in
            var book = parsed
            let covers = coverImages(for: &book, logger: logger)
            return (book, covers)
        }
        return try await store(stored, sha: sha, book, covers: covers, options: options, logger: logger)
    }

    /// The book already stored from the same file, if any.
    private func unchanged(_ file: URL, sha: String, logger: Logger) async throws -> IngestResult? {
        guard let existing = try await books.detail(epubSHA256: sha, logger: logger) else { return nil }
        // The same file again writes its blob again if the stored one was found damaged and set aside.
        _ = try await blobs.put(file: file)
        return IngestResult(outcome: .unchanged, book: existing)
    }

    private func store(
        _ file: URL,
        sha: String,
        _ parsed: ParsedBook,
        covers: CoverImages?,
        options: Options,
        logger: Logger
    ) async throws -> IngestResult {
        let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        let blobs = self.blobs
        // The blobs are written inside the row's transaction, under their shared locks, so that the orphan sweep
        // cannot take them before the row that uses them is committed; a failure leaves them to the sweep.
        let (id, outcome) = try await books.insertOrReplace(
            parsed,
            epubSHA256: sha,
            epubSize: size,
            images: covers?.stored ?? StoredImages(),
            options: options,
            logger: logger
        ) {
            _ = try await blobs.put(file: file)
            try await covers?.write(to: blobs)
        }
        logger.info(
            "Book ingested",
            metadata: ["book.id": "\(id)", "outcome": "\(outcome.rawValue)", "format": "\(parsed.format.rawValue)", "title": "\(parsed.title)"]
        )
        guard let detail = try await books.detail(id: id, logger: logger) else { throw CancellationError() }
        return IngestResult(outcome: outcome, book: detail)
    }

    /// The book's own cover, or one drawn from its title and authors when it has none (nil only if drawing failed,
    /// which is a warning, not a refusal).
    private func coverImages(for parsed: inout ParsedBook, logger: Logger) -> CoverImages? {
        if let cover = parsed.cover {
            let images = CoverImages(raster: cover.data, type: cover.type, source: .epub)
            if let failure = images.thumbnailFailure { parsed.warnings.append(failure) }
            return images
        }
        do {
            return try CoverImages.generated(title: parsed.title, authors: parsed.metadata.authors.map(\.name))
        } catch {
            logger.warning("No cover could be drawn", metadata: ["error": "\(error)", "title": "\(parsed.title)"])
            parsed.warnings.append("no cover, and none could be drawn: \(error)")
            return nil
        }
    }

    /// `PUT /admin/books/{id}/cover`: the operator's image replaces the book's cover and thumbnail, whatever their
    /// source. Throws `UnknownBook` for an unknown book and a 4xx problem for an image that is not a usable cover.
    func replaceCover(of id: UUID, with data: Data, logger: Logger) async throws -> BookRecord {
        // Decoding and thumbnailing the image on NIO's thread pool, as ingest's parsing (`ingest`).
        let covers = try await NIOThreadPool.singleton.runIfActive { try CoverImages.uploaded(data) }
        let blobs = self.blobs
        guard
            try await books.setCover(
                id: id,
                covers.stored,
                hashes: covers.hashes,
                onlyIfMissing: false,
                logger: logger,
                writeBlobs: { try await covers.write(to: blobs) }
            )
        else { throw UnknownBook(id: id) }
        logger.info("Cover replaced", metadata: ["book.id": "\(id)"])
        guard let detail = try await books.detail(id: id, logger: logger) else { throw UnknownBook(id: id) }
        return detail
    }

    /// Draws a cover for every book that has none (books ingested before covers were generated), `batch` at a time
    /// in order of id, reporting progress. A book that gets a cover meanwhile keeps it. Returns how many got one.
    func generateMissingCovers(batch: Int = 100, logger: Logger, progress: (Int) -> Void = { _ in }) async throws -> Int {
        var after: UUID?
        var done = 0
        while true {
            let coverless = try await books.coverless(after: after, limit: batch, logger: logger)
            guard let last = coverless.last else { return done }
            for book in coverless {
                let covers = try CoverImages.generated(title: book.title, authors: book.authors)
                let blobs = self.blobs
                if try await books.setCover(
                    id: book.id,
                    covers.stored,
                    hashes: covers.hashes,
                    onlyIfMissing: true,
                    logger: logger,
                    writeBlobs: { try await covers.write(to: blobs) }
                ) {
                    done += 1
                }
            }
            progress(done)
            after = last.id
        }
    }

    /// Reads again, from its stored EPUB, every book whose metadata an older reader derived (`ParsedBook.readerVersion`),
    /// `batch` at a time in order of id, reporting progress. A book whose EPUB cannot be read any more is left as it
    /// is and counted. Returns (updated, unreadable).
    func rereadMetadata(batch: Int = 100, logger: Logger, progress: (Int) -> Void = { _ in }) async throws -> (updated: Int, unreadable: Int) {
        var after: UUID?
        var updated = 0
        var unreadable = 0
        while true {
            let stale = try await books.readByOlderReader(after: after, limit: batch, logger: logger)
            guard let last = stale.last else { return (updated, unreadable) }
            for book in stale {
                do {
                    var parser = try EPUBParser(url: try await blobs.verified(book.epubSHA256))
                    if try await books.storeRereadMetadata(id: book.id, epubSHA256: book.epubSHA256, try parser.parse(), logger: logger) {
                        updated += 1
                    }
                } catch {
                    unreadable += 1
                    logger.warning("Book not read again", metadata: ["book.id": "\(book.id)", "error": "\(error)"])
                }
            }
            progress(updated)
            after = last.id
        }
    }
}
