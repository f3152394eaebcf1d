import Foundation
import PostgresNIO
import PostgresSupport
import Shared

/// The columns a book is read from, and how its rows decode: an entry's for feeds, a record's for the rest of the
/// catalog, the navigation documents for a single book. Each reads exactly what it selects.
extension BookPostgresRepository {
    /// The columns of a `BookEntry` (`AtomRenderer`, `OPDS2Renderer`, `Entry`): what feed pages select, fifty rows a
    /// page. A record's own columns were a third of the cells catalog decoded and PostgreSQL sent for them.
    static let entryColumns = """
        id, title, subtitle, contributors::text, languages, publisher, published, description, subjects, genres, isbn, identifiers, series,
        series_position, page_progression, fixed_layout, word_count, accessibility::text, format, duration,
        cover_sha256 IS NOT NULL, cover_type, coalesce(thumbnail_type, cover_type), open_access, copies, copies_available, holds,
        rating_average, rating_count, page_count, audience, updated_at, withdrawn_at IS NOT NULL
        """

    /// How many columns `entryColumns` selects; a feed query's own columns follow them.
    static let entryColumnCount = 33

    /// The columns of a `BookRecord` without its navigation: an entry's, then the record's own (the operator's
    /// console, ingest's answer, the checks before a file is served).
    static let recordColumns =
        entryColumns + """
            , epub_sha256, epub_size, featured, staff_pick, checkouts, edition, added_at, warnings, cover_source
            """

    /// How many columns `recordColumns` selects; a query's own columns follow them.
    static let recordColumnCount = entryColumnCount + 9

    /// The navigation documents (`BookNavigation`), read only for a single book.
    static let navigationColumns = "reading_order::text, resources::text, toc::text, page_list::text, landmarks::text"

    /// A feed entry, from a row that selects `entryColumns` first.
    static func decodeEntry(_ cells: PostgresRandomAccessRow) throws -> BookEntry {
        func cell<T: PostgresDecodable>(_ index: Int, _ type: T.Type = T.self) throws -> T { try cells[index].decode(T.self) }
        let metadata = BookMetadata(
            title: try cell(1),
            subtitle: try cell(2),
            contributors: try Contributor.stored(try cell(3, String.self)),
            languages: try cells[4].strings(),
            publisher: try cell(5),
            published: try cell(6),
            description: try cell(7),
            subjects: try cells[8].strings(),
            genres: try cells[9].strings(),
            isbn: try cell(10),
            identifiers: try cells[11].strings(),
            series: try cell(12),
            seriesPosition: try cell(13),
            pageProgression: try cell(14),
            fixedLayout: try cell(15),
            wordCount: try cell(16),
            accessibility: try cell(17, String?.self).flatMap(Accessibility.stored),
            format: BookFormat(rawValue: try cell(18, String.self)) ?? .epub,
            duration: try cell(19)
        )
        return BookEntry(
            id: try cell(0),
            metadata: metadata,
            hasCover: try cell(20),
            coverType: try cell(21),
            thumbnailType: try cell(22),
            openAccess: try cell(23),
            copies: try cell(24),
            copiesAvailable: try cell(25),
            holds: try cell(26),
            ratingAverage: try cell(27),
            ratingCount: try cell(28),
            pageCount: try cell(29),
            audience: try cell(30, String?.self).flatMap(BookAudience.init(rawValue:)),
            updatedAt: try cell(31),
            withdrawn: try cell(32)
        )
    }

    /// A record without its navigation, from a row that selects `recordColumns` first.
    static func decodeRecord(_ cells: PostgresRandomAccessRow) throws -> BookRecord {
        func cell<T: PostgresDecodable>(_ index: Int, _ type: T.Type = T.self) throws -> T { try cells[index].decode(T.self) }
        let first = entryColumnCount
        return BookRecord(
            entry: try decodeEntry(cells),
            epubSha256: try cell(first),
            epubSize: Int(try cell(first + 1, Int64.self)),
            featured: try cell(first + 2),
            staffPick: try cell(first + 3),
            checkouts: try cell(first + 4),
            edition: try cell(first + 5),
            addedAt: try cell(first + 6),
            warnings: try cells[first + 7].strings(),
            coverSource: try cell(first + 8, String?.self).flatMap(CoverSource.init(rawValue:)),
            navigation: nil
        )
    }

    /// The navigation documents, from `navigationColumns` selected at `first`.
    static func decodeNavigation(_ cells: PostgresRandomAccessRow, from first: Int) throws -> BookNavigation {
        let decoder = WireFormat.decoder()
        func document<T: Decodable>(_ index: Int) throws -> T {
            try decoder.decode(T.self, from: Data(try cells[first + index].decode(String.self).utf8))
        }
        return BookNavigation(
            readingOrder: try document(0),
            resources: try document(1),
            toc: try document(2),
            pageList: try document(3),
            landmarks: try document(4)
        )
    }
}
