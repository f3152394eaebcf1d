import Foundation
import Shared

/// A book as a feed entry shows it (`AtomRenderer`, `OPDS2Renderer`, `Entry`): exactly the columns feed pages select
/// (`BookPostgresRepository.entryColumns`), fifty rows a page. Its metadata's fields read as its own (`entry.title`).
@dynamicMemberLookup
struct BookEntry: Sendable, Equatable {
    var id: UUID
    var metadata: BookMetadata
    var hasCover: Bool
    var coverType: String?
    /// The media type of `/cover?size=thumbnail` (the cover's own when no thumbnail could be made).
    var thumbnailType: String?
    var openAccess: Bool
    var copies: Int
    var copiesAvailable: Int
    var holds: Int
    var ratingAverage: Double?
    var ratingCount: Int
    /// Pages of the print edition (from the EPUB's page list) or the PDF's pages.
    var pageCount: Int?
    /// Who the book is for (nil: not stated; only adults' cards see it).
    var audience: BookAudience?
    var updatedAt: Date
    var withdrawn: Bool

    subscript<Value>(dynamicMember field: KeyPath<BookMetadata, Value>) -> Value { metadata[keyPath: field] }

    /// About what an entry takes in memory (its fixed part and its texts): the feed cache counts the rows it keeps with
    /// a page (`FeedPostgresRepository.Page`).
    var approximateBytes: Int {
        let texts = [metadata.title, metadata.subtitle, metadata.publisher, metadata.published, metadata.description, metadata.isbn, metadata.series]
            .reduce(0) { $0 + ($1?.utf8.count ?? 0) }
        let lists = [metadata.languages, metadata.subjects, metadata.genres, metadata.identifiers].reduce(0) {
            $0 + $1.reduce(16) { $0 + 16 + $1.utf8.count }
        }
        return MemoryLayout<BookEntry>.stride + texts + lists + metadata.contributors.count * 96 + (metadata.accessibility == nil ? 0 : 512)
    }
}

/// Written flat, the metadata's fields beside the entry's own, as `BookRecord` answers the console.
extension BookEntry: Encodable {
    private enum Field: String, CodingKey {
        case id, readingMinutes, hasCover, coverType, thumbnailType, openAccess, copies, copiesAvailable, holds, ratingAverage, ratingCount
        case pageCount, audience, updatedAt, withdrawn
    }

    func encode(to encoder: any Encoder) throws {
        try metadata.encode(to: encoder)
        var fields = encoder.container(keyedBy: Field.self)
        try fields.encode(id, forKey: .id)
        try fields.encode(metadata.readingMinutes, forKey: .readingMinutes)
        try fields.encode(hasCover, forKey: .hasCover)
        try fields.encodeIfPresent(coverType, forKey: .coverType)
        try fields.encodeIfPresent(thumbnailType, forKey: .thumbnailType)
        try fields.encode(openAccess, forKey: .openAccess)
        try fields.encode(copies, forKey: .copies)
        try fields.encode(copiesAvailable, forKey: .copiesAvailable)
        try fields.encode(holds, forKey: .holds)
        try fields.encodeIfPresent(ratingAverage, forKey: .ratingAverage)
        try fields.encode(ratingCount, forKey: .ratingCount)
        try fields.encodeIfPresent(pageCount, forKey: .pageCount)
        try fields.encodeIfPresent(audience, forKey: .audience)
        try fields.encode(updatedAt, forKey: .updatedAt)
        try fields.encode(withdrawn, forKey: .withdrawn)
    }
}
