import Foundation

/// The licence of one book, sent by catalog to patron through its outbox (`PUT /internal/licenses/{id}`).
/// `version` grows with every change; patron ignores older versions.
public struct License: Codable, Sendable, Equatable {
    public var bookId: UUID
    public var copies: Int
    public var openAccess: Bool
    public var withdrawn: Bool
    public var title: String
    public var authors: [String]
    public var version: Int64
    /// Whether the book has a cover image (nil from a catalog older than this field: assume it has).
    public var hasCover: Bool?
    /// KOReader's name for the book's EPUB (its partial MD5), by which KOReader's sync plugin names the book (nil from
    /// a catalog older than this field, or a book stored before it until `catalog reread-metadata` has read it).
    public var koreaderDigest: String?
    /// Who the book is for (nil: not stated, or from a catalog older than this field): patron lends it only to cards
    /// it fits (`AudienceLimit`).
    public var audience: BookAudience?

    public init(
        bookId: UUID,
        copies: Int,
        openAccess: Bool,
        withdrawn: Bool,
        title: String,
        authors: [String],
        version: Int64,
        hasCover: Bool? = nil,
        koreaderDigest: String? = nil,
        audience: BookAudience? = nil
    ) {
        self.bookId = bookId
        self.copies = copies
        self.openAccess = openAccess
        self.withdrawn = withdrawn
        self.title = title
        self.authors = authors
        self.version = version
        self.hasCover = hasCover
        self.koreaderDigest = koreaderDigest
        self.audience = audience
    }
}
