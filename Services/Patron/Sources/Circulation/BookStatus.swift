import Foundation
import Shared

/// A patron's relation to one book as `GET /me/books/{id}` and "My books" show it.
struct BookStatus: Codable, Sendable, Equatable {
    var bookId: UUID
    var state: BookState
    var allowedEvents: [String]
    var dueAt: Date?
    var holdPosition: Int?
    /// While the hold is suspended: no offer reaches it before this date; it keeps its place meanwhile.
    var suspendedUntil: Date?
    var estimatedWait: String?
    var estimatedWaitSeconds: Int?
    var offerExpiresAt: Date?
    var title: String?
    var authors: [String]?
    /// The cover and its thumbnail (at most 200 px high) at catalog; absent for a book without a cover.
    var coverUrl: String?
    var thumbnailUrl: String?
}
