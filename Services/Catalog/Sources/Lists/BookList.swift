import Foundation

/// A named, ordered list of books: a patron's own (`owner` set) or a staff list (`owner` nil).
struct BookList: Codable, Sendable, Equatable {
    var id: UUID
    var title: String
    var description: String
    /// Readable by anyone with the link (a patron's list is private until made public; staff lists are public).
    var isPublic: Bool
    /// A staff list shown as a lane of the root and grouped feeds.
    var featured: Bool
    var bookCount: Int
    var createdAt: Date
    var updatedAt: Date
    /// The books in order (one list's own answer only).
    var books: [UUID]?
    /// Their titles, in the same order (one list's own answer only).
    var titles: [String]?
    /// The list's OPDS feed (set when answered).
    var feedUrl: String?

    enum CodingKeys: String, CodingKey {
        case id, title, description
        case isPublic = "public"
        case featured, bookCount, createdAt, updatedAt, books, titles, feedUrl
    }

    static let titleLimit = 200
    static let descriptionLimit = 2000
    /// The most lists one patron may keep, and the most books in one list.
    static let listsPerOwner = 100
    static let booksPerList = 1000
}
