import Foundation
import Shared

/// One row of `patron_books` with what is needed to describe it.
struct PatronBookRow: Sendable {
    var bookID: UUID
    var state: BookState
    var dueAt: Date?
    var offerExpiresAt: Date?
    var holdPlacedAt: Date?
    /// The place in the queue (every hold placed earlier counts) and the place among the holds that can be offered
    /// a copy now (suspended ones ahead are passed over).
    var holdPosition: Int?
    var activeHoldPosition: Int?
    var suspendedUntil: Date?
    var copies: Int
    var title: String?
    var authors: [String]?
    var hasCover = true

    func status(rules: CirculationRules, now: Date = Date()) -> BookStatus {
        let suspension = state == .waitingForLoan ? suspendedUntil.flatMap { $0 > now ? $0 : nil } : nil
        let wait =
            state == .waitingForLoan
            ? (activeHoldPosition ?? holdPosition).map { position in
                rules.estimatedWait(position: position, copies: copies, notBefore: suspension.map { $0.timeIntervalSince(now) } ?? 0)
            } : nil
        let cover = hasCover ? PublicRoute.cover(bookID).url(rules.publicURL) : nil
        // Resuming is offered only to a suspended hold; suspending again moves the date.
        let events = BookMachine.allowedEvents(from: state).filter { $0 != .resume || suspension != nil }
        return BookStatus(
            bookId: bookID,
            state: state,
            allowedEvents: events.map(\.rawValue),
            dueAt: state.isOnLoan || state == .loanExpired ? dueAt : nil,
            holdPosition: state == .waitingForLoan ? holdPosition : nil,
            suspendedUntil: suspension,
            estimatedWait: wait?.text,
            estimatedWaitSeconds: wait.map { Int($0.seconds) },
            offerExpiresAt: state == .loanOffered || state == .loanOfferExpired ? offerExpiresAt : nil,
            title: title,
            authors: authors,
            coverUrl: cover,
            thumbnailUrl: cover.map { $0 + PublicRoute.thumbnailQuery }
        )
    }
}
