import Foundation
import Shared

/// A patron's relation to one book as `GET /me/books/{id}` and "My books" show it.
struct BookStatus: Codable, Sendable, Equatable {
    var bookId: UUID
    var state: BookState
    var allowedEvents: [String]
    var dueAt: Date?
    var holdPosition: Int?
    var estimatedWait: String?
    var estimatedWaitSeconds: Int?
    var offerExpiresAt: Date?
    var title: String?
    var authors: [String]?
    /// The cover and its thumbnail (at most 200 px high) at catalog; absent for a book without a cover.
    var coverUrl: String?
    var thumbnailUrl: String?
}

/// One row of `patron_books` with what is needed to describe it.
struct PatronBookRow: Sendable {
    var bookID: UUID
    var state: BookState
    var dueAt: Date?
    var offerExpiresAt: Date?
    var holdPlacedAt: Date?
    var holdPosition: Int?
    var copies: Int
    var title: String?
    var authors: [String]?
    var hasCover = true

    func status(rules: CirculationRules) -> BookStatus {
        let wait = state == .waitingForLoan ? holdPosition.map { rules.estimatedWait(position: $0, copies: copies) } : nil
        let cover = hasCover ? "\(rules.publicURL)/books/\(bookID.lowercased)/cover" : nil
        return BookStatus(
            bookId: bookID, state: state, allowedEvents: BookMachine.allowedEvents(from: state).map(\.rawValue),
            dueAt: state.isOnLoan || state == .loanExpired ? dueAt : nil,
            holdPosition: state == .waitingForLoan ? holdPosition : nil, estimatedWait: wait?.text, estimatedWaitSeconds: wait.map { Int($0.seconds) },
            offerExpiresAt: state == .loanOffered || state == .loanOfferExpired ? offerExpiresAt : nil,
            title: title, authors: authors, coverUrl: cover, thumbnailUrl: cover.map { $0 + "?size=thumbnail" })
    }
}
