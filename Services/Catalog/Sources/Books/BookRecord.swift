import Foundation
import Shared

/// A book as the catalog keeps it: its entry (metadata, holdings, figures) with its file, the staff's flags and its
/// history; for the console, ingest's answer and the checks before a file or resource is served. Its entry's fields
/// read as its own (`record.title`, `record.copies`).
@dynamicMemberLookup
struct BookRecord: Sendable, Equatable {
    var entry: BookEntry
    /// The book's file (an EPUB, a PDF or an audiobook's package), by content.
    var epubSha256: String
    var epubSize: Int
    var featured: Bool
    var staffPick: Bool
    var checkouts: Int
    /// Raised each time a new file replaces the book's.
    var edition: Int
    var addedAt: Date
    /// What ingest noticed in the file.
    var warnings: [String]
    /// Where the cover came from (nil: no cover).
    var coverSource: CoverSource?
    /// Only on single-book reads (`BookPostgresRepository.detail`).
    var navigation: BookNavigation?

    subscript<Value>(dynamicMember field: KeyPath<BookEntry, Value>) -> Value { entry[keyPath: field] }

    /// The authors' names, as the console lists them.
    var authorNames: [String] { entry.metadata.authors.map(\.name) }
}

/// Written flat: the entry's fields and the navigation's beside the record's own (the console and ingest's answer).
extension BookRecord: Encodable {
    private enum Field: String, CodingKey {
        case authors, epubSha256, epubSize, featured, staffPick, checkouts, edition, addedAt, warnings, coverSource
    }

    func encode(to encoder: any Encoder) throws {
        try entry.encode(to: encoder)
        try navigation?.encode(to: encoder)
        var fields = encoder.container(keyedBy: Field.self)
        try fields.encode(authorNames, forKey: .authors)
        try fields.encode(epubSha256, forKey: .epubSha256)
        try fields.encode(epubSize, forKey: .epubSize)
        try fields.encode(featured, forKey: .featured)
        try fields.encode(staffPick, forKey: .staffPick)
        try fields.encode(checkouts, forKey: .checkouts)
        try fields.encode(edition, forKey: .edition)
        try fields.encode(addedAt, forKey: .addedAt)
        try fields.encode(warnings, forKey: .warnings)
        try fields.encodeIfPresent(coverSource, forKey: .coverSource)
    }
}
