import Foundation
import Shared

/// A book as the catalog knows it: what feeds, the admin API and the ingest response show.
struct BookDetail: Codable, Sendable, Equatable {
    var id: UUID
    var title: String
    var subtitle: String?
    var authors: [String]
    var contributors: [Contributor]
    var languages: [String]
    var publisher: String?
    var published: String?
    var description: String?
    var subjects: [String]
    var genres: [String]
    var isbn: String?
    var identifiers: [String]
    var series: String?
    var seriesPosition: Double?
    var pageProgression: String?
    var fixedLayout: Bool
    var wordCount: Int
    var readingMinutes: Int
    var epubSha256: String
    var epubSize: Int
    var hasCover: Bool
    var coverType: String?
    var openAccess: Bool
    var featured: Bool
    var staffPick: Bool
    var copies: Int
    var copiesAvailable: Int
    var holds: Int
    var checkouts: Int
    var ratingAverage: Double?
    var ratingCount: Int
    var edition: Int
    var addedAt: Date
    var updatedAt: Date
    var withdrawn: Bool
    var warnings: [String]
    /// The media type of `/cover?size=thumbnail` (the cover's own when no thumbnail could be made).
    var thumbnailType: String?
    /// Where the cover came from (nil: no cover).
    var coverSource: CoverSource?
    var accessibility: Accessibility?
    /// Pages of the print edition (from the EPUB's page list).
    var pageCount: Int?
    var format: BookFormat = .epub
    /// An audiobook's length in seconds.
    var duration: Double? = nil
    /// Who the book is for (nil: not stated; only adults' cards see it).
    var audience: BookAudience? = nil
    /// Only on single-book reads.
    var toc: [TOCEntry]?
    var pageList: [TOCEntry]?
    var landmarks: [TOCEntry]?
    var readingOrder: [PackageResource]?
    /// Every item of the package's manifest (the reading order included).
    var resources: [PackageResource]?

    var sortAuthor: String { contributors.first { $0.role == "aut" }?.sortAs ?? authors.first ?? "" }

    /// About what a feed's row takes in memory (its fixed part and its texts; a single book's tables of contents
    /// aside): the feed cache counts the rows it keeps with a page (`FeedPostgresRepository.Page`).
    var approximateBytes: Int {
        let texts = [title, subtitle, publisher, published, description, isbn, series, epubSha256].reduce(0) { $0 + ($1?.utf8.count ?? 0) }
        let lists = [authors, languages, subjects, genres, identifiers, warnings].reduce(0) { $0 + $1.reduce(16) { $0 + 16 + $1.utf8.count } }
        return MemoryLayout<BookDetail>.stride + texts + lists + contributors.count * 96 + (accessibility == nil ? 0 : 512)
    }
}
