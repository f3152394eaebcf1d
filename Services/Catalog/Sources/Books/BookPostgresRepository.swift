import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// Books in the catalog database.
struct BookPostgresRepository: Sendable {
    /// Licences' outbox keys: `license:<book id>`. The deliverer sends those due together (`InternalRoute.licenses`).
    static let licenseKeyPrefix = "license:"

    private let source: Source

    /// Runs a read on the database these queries go to: the primary, or for public reads the replica `ReadReplicas`
    /// picks. A read a replica could not answer (its connection lost, or none could be made) is run again on the
    /// primary, and the replica left out until its next check: a replica going away costs no reader a 503. A read under
    /// way on a replica whose pool is closed is asked of the primary at once (`ReadReplicas.read(onReplica:_:_:)`).
    func read<Result: Sendable>(_ body: @escaping @Sendable (PostgresClient) async throws -> Result) async throws -> Result {
        guard case .reads(let replicas) = source else { return try await body(primary) }
        let (client, replica) = replicas.pick()
        guard let replica else { return try await body(client) }
        do {
            return try await replicas.read(onReplica: replica, client, body)
        } catch is ReadReplicas.ReplicaClosed {
            return try await body(replicas.onPrimary())
        } catch  where DatabaseErrorProblem.isUnreachable(error) {
            replicas.leaveOut(replica, error: error)
            return try await body(replicas.onPrimary())
        }
    }

    /// The primary: writes, and reads that must see them.
    var primary: PostgresClient {
        switch source {
        case .primary(let client): client
        case .reads(let replicas): replicas.primary
        }
    }

    private enum Source: Sendable {
        case primary(PostgresClient)
        case reads(ReadReplicas)
    }

    /// Every query on the primary.
    init(client: PostgresClient) { source = .primary(client) }

    /// Reads from a replica when one is usable (never for writes, nor for the operator's reads after them).
    init(reads: ReadReplicas) { source = .reads(reads) }

    /// Books from a query that selects `recordColumns`.
    func records(_ query: PostgresQuery, logger: Logger) async throws -> [BookRecord] {
        try await books(query, decode: Self.decodeRecord, logger: logger)
    }

    /// Books as feed entries from a query that selects `entryColumns`.
    func entries(_ query: PostgresQuery, logger: Logger) async throws -> [BookEntry] {
        try await books(query, decode: Self.decodeEntry, logger: logger)
    }

    private func books<Book: Sendable>(
        _ query: PostgresQuery,
        decode: @escaping @Sendable (PostgresRandomAccessRow) throws -> Book,
        logger: Logger
    ) async throws -> [Book] {
        try await read { client in
            var result: [Book] = []
            for try await row in try await client.query(query, logger: logger) { result.append(try decode(row.makeRandomAccess())) }
            return result
        }
    }

    /// The books with these ids that are not withdrawn, as feed entries, in the order of `ids`.
    func entries(ids: [UUID], logger: Logger) async throws -> [BookEntry] {
        guard !ids.isEmpty else { return [] }
        let books = try await entries(
            "SELECT \(unescaped: Self.entryColumns) FROM books WHERE id = ANY(\(ids)) AND withdrawn_at IS NULL",
            logger: logger
        )
        let byID = Dictionary(books.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        return ids.compactMap { byID[$0] }
    }

    /// One book as a feed entry, withdrawn or not, without its navigation: its own page and its related feed need
    /// nothing more, and decoding the navigation was a book page's largest single cost (docs/PERFORMANCE.md).
    func entry(id: UUID, logger: Logger) async throws -> BookEntry? {
        try await read { client in
            var entry: BookEntry?
            for try await row in try await client.run(EntryByID.self, id, logger: logger) { entry = try Self.decodeEntry(row.makeRandomAccess()) }
            return entry
        }
    }

    /// Prepared: planning a statement on `books` (48 indexes to weigh) cost ten times running this one (a book page's
    /// 0.4 ms against 0.04 in the server's log, issue 72).
    enum EntryByID: PreparedSQL {
        static let sql = "SELECT \(BookPostgresRepository.entryColumns) FROM books WHERE id = $1::uuid"
    }

    /// One book with its reading order, resources and navigation documents.
    func detail(id: UUID, logger: Logger) async throws -> BookRecord? {
        try await read { client in
            let rows = try await client.query(
                PostgresQuery(
                    unsafeSQL: "SELECT \(Self.recordColumns), \(Self.navigationColumns) FROM books WHERE id = $1",
                    binds: binds(id)
                ),
                logger: logger
            )
            for try await row in rows {
                let cells = row.makeRandomAccess()
                var book = try Self.decodeRecord(cells)
                book.navigation = try Self.decodeNavigation(cells, from: Self.recordColumnCount)
                return book
            }
            return nil
        }
    }

    /// The book with `id` unless it is unknown or withdrawn (`UnknownBook`).
    func available(id: UUID, logger: Logger) async throws -> BookRecord {
        guard let book = try await detail(id: id, logger: logger), !book.withdrawn else { throw UnknownBook(id: id) }
        return book
    }

    /// The blob and media type of an available book's cover, or of its thumbnail when it has one of its own.
    func coverImage(of id: UUID, thumbnail: Bool, logger: Logger) async throws -> (hash: String, type: String?)? {
        try await read { client in
            let rows = try await client.query(
                """
                SELECT cover_sha256, cover_type, thumbnail_sha256, thumbnail_type FROM books
                WHERE id = \(id) AND withdrawn_at IS NULL AND cover_sha256 IS NOT NULL
                """,
                logger: logger
            )
            for try await (coverHash, coverType, thumbnailHash, thumbnailType) in rows.decode((String, String?, String?, String?).self) {
                if thumbnail, let thumbnailHash { return (thumbnailHash, thumbnailType) }
                return (coverHash, coverType)
            }
            return nil
        }
    }

    func detail(epubSHA256: String, logger: Logger) async throws -> BookRecord? {
        let id = try await read { client in
            for try await id in try await client.query("SELECT id FROM books WHERE epub_sha256 = \(epubSHA256)", logger: logger).decode(UUID.self) {
                return Optional(id)
            }
            return nil
        }
        guard let id else { return nil }
        return try await detail(id: id, logger: logger)
    }

    /// Inserts a new book, or, with `options.replace`, replaces the file of the book with the same ISBN (a new
    /// edition); queues the licence. Throws `IngestConflict` for an existing ISBN without `replace`.
    func insertOrReplace(
        _ book: ParsedBook,
        epubSHA256: String,
        epubSize: Int,
        images: StoredImages,
        options: Ingester.Options,
        logger: Logger,
        writeBlobs: @escaping @Sendable () async throws -> Void
    ) async throws -> (UUID, IngestResult.Outcome) {
        func json<T: Encodable>(_ value: T) throws -> String { String(decoding: try WireFormat.encode(value), as: UTF8.self) }
        let authors = book.metadata.authors.map(\.name)
        let sortAuthor = book.metadata.authors.first.map { $0.sortAs ?? $0.name } ?? ""
        let sortTitle = Self.sortTitle(book.title)
        let contributors = try json(book.contributors)
        let toc = try json(book.toc)
        let pageList = try json(book.pageList)
        let landmarks = try json(book.landmarks)
        let readingOrder = try json(book.readingOrder)
        let resources = try json(book.resources)
        let accessibility = try book.accessibility.map(json)
        do {
            return try await primary.transaction(logger: logger) { connection in
                let hashes = [epubSHA256] + [images.coverSHA256, images.thumbnailSHA256].compactMap { $0 }
                let coverSource = images.coverSource?.rawValue
                try await BlobReferencePostgresRepository.lockShared(hashes, on: connection, logger: logger)
                try await writeBlobs()
                if !options.replace, let isbn = book.isbn {
                    let existing = try await connection.query("SELECT id FROM books WHERE isbn = \(isbn)", logger: logger)
                    for try await id in existing.decode(UUID.self) { throw IngestConflict(isbn: isbn, existing: id) }
                }
                let rows = try await connection.query(
                    """
                    INSERT INTO books AS b (id, title, subtitle, sort_title, sort_author, authors, contributors, languages, publisher, published,
                        description, subjects, genres, isbn, identifiers, series, series_position, page_progression, fixed_layout, word_count,
                        reading_minutes, epub_sha256, epub_size, cover_sha256, cover_type, cover_source, thumbnail_sha256, thumbnail_type, toc, page_list, landmarks,
                        reading_order, resources, accessibility, screen_reader_friendly, declares_no_hazards, page_count, reader_version,
                        koreader_digest, warnings, open_access, featured, copies, copies_available, format, duration, audience)
                    VALUES (\(UUID.timeOrdered()), \(book.title), \(book.subtitle), \(sortTitle), \(sortAuthor), \(authors), \(contributors)::jsonb,
                        \(book.languages), \(book.publisher), \(book.published), \(book.description), \(book.subjects), \(book.genres), \(book.isbn),
                        \(book.identifiers), \(book.series), \(book.seriesPosition), \(book.pageProgression), \(book.fixedLayout), \(book.wordCount),
                        \(book.metadata.readingMinutes), \(epubSHA256), \(Int64(epubSize)), \(images.coverSHA256), \(images.coverType),
                        \(coverSource), \(images.thumbnailSHA256), \(images.thumbnailType), \(toc)::jsonb,
                        \(pageList)::jsonb, \(landmarks)::jsonb, \(readingOrder)::jsonb, \(resources)::jsonb, \(accessibility)::jsonb,
                        \(book.accessibility?.isScreenReaderFriendly ?? false), \(book.accessibility?.declaresNoHazards ?? false), \(book.pageCount),
                        \(ParsedBook.readerVersion), \(book.koreaderDigest), \(book.warnings), \(options.openAccess),
                        \(options.featured), \(options.copies), \(options.copies), \(book.format.rawValue), \(book.duration),
                        \(book.audience?.rawValue))
                    ON CONFLICT (isbn) DO UPDATE SET title = EXCLUDED.title, subtitle = EXCLUDED.subtitle, sort_title = EXCLUDED.sort_title,
                        sort_author = EXCLUDED.sort_author, authors = EXCLUDED.authors, contributors = EXCLUDED.contributors,
                        languages = EXCLUDED.languages, publisher = EXCLUDED.publisher, published = EXCLUDED.published,
                        description = EXCLUDED.description, subjects = EXCLUDED.subjects, genres = EXCLUDED.genres,
                        identifiers = EXCLUDED.identifiers, series = EXCLUDED.series, series_position = EXCLUDED.series_position,
                        page_progression = EXCLUDED.page_progression, fixed_layout = EXCLUDED.fixed_layout, word_count = EXCLUDED.word_count,
                        reading_minutes = EXCLUDED.reading_minutes, epub_sha256 = EXCLUDED.epub_sha256, epub_size = EXCLUDED.epub_size,
                        cover_sha256 = CASE WHEN \(unescaped: Self.keepsUploadedCover) THEN b.cover_sha256 ELSE EXCLUDED.cover_sha256 END,
                        cover_type = CASE WHEN \(unescaped: Self.keepsUploadedCover) THEN b.cover_type ELSE EXCLUDED.cover_type END,
                        cover_source = CASE WHEN \(unescaped: Self.keepsUploadedCover) THEN b.cover_source ELSE EXCLUDED.cover_source END,
                        thumbnail_sha256 = CASE WHEN \(unescaped: Self.keepsUploadedCover) THEN b.thumbnail_sha256 ELSE EXCLUDED.thumbnail_sha256 END,
                        thumbnail_type = CASE WHEN \(unescaped: Self.keepsUploadedCover) THEN b.thumbnail_type ELSE EXCLUDED.thumbnail_type END,
                        toc = EXCLUDED.toc, page_list = EXCLUDED.page_list,
                        landmarks = EXCLUDED.landmarks, reading_order = EXCLUDED.reading_order, resources = EXCLUDED.resources,
                        accessibility = EXCLUDED.accessibility, screen_reader_friendly = EXCLUDED.screen_reader_friendly,
                        declares_no_hazards = EXCLUDED.declares_no_hazards, page_count = EXCLUDED.page_count, reader_version = EXCLUDED.reader_version,
                        koreader_digest = EXCLUDED.koreader_digest, warnings = EXCLUDED.warnings,
                        format = EXCLUDED.format, duration = EXCLUDED.duration,
                        audience = coalesce(EXCLUDED.audience, b.audience), edition = b.edition + 1, updated_at = now(), license_version = b.license_version + 1
                    WHERE \(options.replace)
                    RETURNING id, edition
                    """,
                    logger: logger
                )
                var result: (UUID, Int)?
                for try await row in rows.decode((UUID, Int).self) { result = row }
                guard let (id, edition) = result else {
                    // Another upload took this ISBN since the check above, and replacing was not asked for.
                    if let isbn = book.isbn {
                        for try await id in try await connection.query("SELECT id FROM books WHERE isbn = \(isbn)", logger: logger).decode(UUID.self)
                        {
                            throw IngestConflict(isbn: isbn, existing: id)
                        }
                    }
                    throw CancellationError()
                }
                try await enqueueLicense(id, on: connection, logger: logger)
                return (id, edition > 1 ? .newEdition : .created)
            }
        } catch let error as PSQLError where error.isUniqueViolation {
            // The same file, ingested concurrently by someone else.
            let rows = try await primary.query("SELECT id FROM books WHERE epub_sha256 = \(epubSHA256)", logger: logger)
            for try await id in rows.decode(UUID.self) { return (id, .unchanged) }
            throw error
        }
    }

    /// A new edition whose EPUB has no cover keeps the cover an operator sent for the book (its own cover would win).
    private static let keepsUploadedCover = "b.cover_source = 'uploaded' AND EXCLUDED.cover_source IS DISTINCT FROM 'epub'"

    /// Sets a book's cover and thumbnail (blobs written by `writeBlobs` under their shared locks, in the transaction),
    /// only if it has none when `onlyIfMissing`. False for an unknown book or one that has a cover already; the
    /// licence goes to patron, which learns that the book has a cover.
    func setCover(
        id: UUID,
        _ images: StoredImages,
        hashes: [String],
        onlyIfMissing: Bool,
        logger: Logger,
        writeBlobs: @escaping @Sendable () async throws -> Void
    ) async throws -> Bool {
        try await primary.transaction(logger: logger) { connection in
            var found = false
            let locked = try await connection.query(
                "SELECT 1 FROM books WHERE id = \(id) AND (cover_sha256 IS NULL OR NOT \(onlyIfMissing)) FOR UPDATE",
                logger: logger
            )
            for try await _ in locked { found = true }
            guard found else { return false }
            try await BlobReferencePostgresRepository.lockShared(hashes, on: connection, logger: logger)
            try await writeBlobs()
            try await connection.query(
                """
                UPDATE books SET cover_sha256 = \(images.coverSHA256), cover_type = \(images.coverType), cover_source = \(images.coverSource?.rawValue),
                    thumbnail_sha256 = \(images.thumbnailSHA256), thumbnail_type = \(images.thumbnailType),
                    license_version = license_version + 1, updated_at = now()
                WHERE id = \(id)
                """,
                logger: logger
            )
            try await enqueueLicense(id, on: connection, logger: logger)
            return true
        }
    }

    /// Books without a cover, in order of id after `after`.
    func coverless(after: UUID?, limit: Int, logger: Logger) async throws -> [(id: UUID, title: String, authors: [String])] {
        try await read { client in
            let rows = try await client.query(
                """
                SELECT id, title, authors FROM books WHERE cover_sha256 IS NULL AND id > coalesce(\(after), '00000000-0000-0000-0000-000000000000'::uuid)
                ORDER BY id LIMIT \(limit)
                """,
                logger: logger
            )
            var books: [(id: UUID, title: String, authors: [String])] = []
            for try await (id, title, authors) in rows.decode((UUID, String, [String]).self) { books.append((id, title, authors)) }
            return books
        }
    }

    /// Books whose metadata an older EPUB reader derived, with their EPUB's blob, in order of id after `after`.
    func readByOlderReader(after: UUID?, limit: Int, logger: Logger) async throws -> [(id: UUID, epubSHA256: String)] {
        try await read { client in
            let rows = try await client.query(
                """
                SELECT id, epub_sha256 FROM books WHERE reader_version < \(ParsedBook.readerVersion) AND format = 'epub'
                    AND id > coalesce(\(after), '00000000-0000-0000-0000-000000000000'::uuid)
                ORDER BY id LIMIT \(limit)
                """,
                logger: logger
            )
            var books: [(id: UUID, epubSHA256: String)] = []
            for try await (id, hash) in rows.decode((UUID, String).self) { books.append((id, hash)) }
            return books
        }
    }

    /// Stores what the current reader derives from a book's EPUB beyond what was stored at its ingest (accessibility,
    /// page count, series, KOReader's digest), unless the book's file changed meanwhile, and sends the book's licence
    /// (which carries the digest) to patron. True when stored.
    func storeRereadMetadata(id: UUID, epubSHA256: String, _ book: ParsedBook, logger: Logger) async throws -> Bool {
        let accessibility = try book.accessibility.map { String(decoding: try WireFormat.encode($0), as: UTF8.self) }
        return try await primary.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                UPDATE books SET accessibility = \(accessibility)::jsonb, screen_reader_friendly = \(book.accessibility?.isScreenReaderFriendly ?? false),
                    declares_no_hazards = \(book.accessibility?.declaresNoHazards ?? false), page_count = \(book.pageCount),
                    series = \(book.series), series_position = \(book.seriesPosition), koreader_digest = \(book.koreaderDigest),
                    reader_version = \(ParsedBook.readerVersion), license_version = license_version + 1, updated_at = now()
                WHERE id = \(id) AND epub_sha256 = \(epubSHA256) AND reader_version < \(ParsedBook.readerVersion)
                RETURNING id
                """,
                logger: logger
            )
            var stored = false
            for try await _ in rows { stored = true }
            // Patron learns the book's KOReader digest with its licence.
            if stored { try await enqueueLicense(id, on: connection, logger: logger) }
            return stored
        }
    }

    /// Applies circulation figures from patron, each unless a newer version is already stored: one statement for all.
    func applyFigures(_ figures: [CirculationFigures], logger: Logger) async throws {
        // The newest of each book (a row is updated once a statement), in book order, which the plan usually keeps (a
        // nested loop over the array): two batches then lock their common books in one order. A deadlock PostgreSQL
        // breaks fails the request, and the outbox sends the batch again.
        let newest = Dictionary(figures.map { ($0.bookId, $0) }) { $0.version >= $1.version ? $0 : $1 }
        let sorted = newest.values.sorted { $0.bookId < $1.bookId }
        guard !sorted.isEmpty else { return }
        let json = String(decoding: try WireFormat.encode(sorted), as: UTF8.self)
        for try await _ in try await primary.run(ApplyFigures.self, json, logger: logger) {}
    }

    /// $1 a JSON array of `CirculationFigures`; prepared (`PreparedSQL`): every borrow and return brings figures.
    /// `popularity` (indexed: the popularity order) follows `checkouts` exactly below 20 and then when it has moved by
    /// a tenth: an update that leaves every indexed column as it was is HOT (the row changes in place, no index takes
    /// an entry).
    enum ApplyFigures: PreparedSQL {
        static let sql = """
            UPDATE books b SET copies_available = f."copiesAvailable", holds = f.holds, checkouts = f.checkouts,
                rating_average = f."ratingAverage", rating_count = f."ratingCount", figures_version = f.version,
                popularity = CASE WHEN abs(f.checkouts - b.popularity) >= greatest(1, b.popularity / 10) THEN f.checkouts ELSE b.popularity END
            FROM jsonb_to_recordset($1::text::jsonb) AS f("bookId" uuid, "copiesAvailable" int, holds int, checkouts int,
                "ratingAverage" float8, "ratingCount" int, version int8)
            WHERE b.id = f."bookId" AND b.figures_version < f.version
            """
    }

    /// Title without a leading article, lower-cased, for sorting.
    static func sortTitle(_ title: String) -> String {
        let lower = title.lowercased()
        for article in ["the ", "a ", "an ", "le ", "la ", "les ", "l'", "der ", "die ", "das "] where lower.hasPrefix(article) {
            return String(lower.dropFirst(article.count))
        }
        return lower
    }

    private func binds(_ values: UUID...) -> PostgresBindings {
        var bindings = PostgresBindings()
        for value in values { bindings.append(value) }
        return bindings
    }
}
