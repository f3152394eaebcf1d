import Foundation
import Shared

/// What an event does to a patron's book, decided from what the change's locks read (the book's licence, the patron's
/// row for it): the rules of circulation without the database, tested in memory (`CirculationDecisionTests`).
/// `CirculationPostgresRepository.apply` carries a decision out in the same transaction; the limits that depend on
/// other rows (free copies, loans, holds, saved books) are counted there, under the same locks.
enum CirculationDecision: Equatable {
    /// The event repeats the state the book is in: nothing changes, the answer is the book's status (idempotent).
    case unchanged
    case change(Change)

    struct Change: Equatable {
        var next: BookState
        /// The patron's loan limit and the book's copies, checked by the write itself (nil: not checked).
        var loanLimit: Int? = nil
        var copies: Int? = nil
        /// The patron's hold limit, and the saved books' limit, counted before the write.
        var holdLimit: Int? = nil
        var savedLimit: Int? = nil
        /// The book's queue moves: a copy may be free for the next patron waiting (`promoteHolds`).
        var promotesHolds = false
        var notification: NotificationKind? = nil
    }

    /// The events after which a copy may be free for the queue, or a hold may find one free.
    static let promotingEvents: Set<BookEvent> = [.returnLoan, .loanExpired, .decline, .offerExpired, .cancelHold, .hold]

    /// `event` on a book in `state`, whose licence the change read, for a patron with `limits`; throws the refusal
    /// (an illegal transition, a book that is gone, a hold on an open-access book).
    static func decide(
        _ event: BookEvent,
        in state: BookState,
        license: LicenseRow,
        bookID: UUID,
        limits: (loans: Int, holds: Int),
        rules: CirculationRules,
        blocked: String? = nil
    ) throws -> CirculationDecision {
        if (event == .borrow && state.isOnLoan) || (event == .save && state == .saved) || (event == .unsave && state == .none)
            || BookMachine.isRepeat(event, in: state)
        {
            return .unchanged
        }
        // A blocked patron keeps what they have (return, read, cancel) but takes nothing new.
        if let blocked, [.borrow, .hold, .accept].contains(event) { throw CirculationError.patronBlocked(reason: blocked) }
        var change: Change
        do { change = Change(next: try BookMachine.next(from: state, on: event)) } catch { throw CirculationError.illegal(error) }
        switch event {
        case .borrow:
            guard !license.withdrawn else { throw CirculationError.unknownBook(bookID) }
            change.loanLimit = limits.loans
            change.copies = license.openAccess ? nil : license.copies
        case .hold:
            guard !license.withdrawn else { throw CirculationError.unknownBook(bookID) }
            guard !license.openAccess else { throw CirculationError.openAccess }
            change.holdLimit = limits.holds
        case .accept:
            change.loanLimit = limits.loans
        case .save:
            change.savedLimit = rules.savedLimit
        default: break
        }
        change.promotesHolds = promotingEvents.contains(event)
        change.notification = NotificationKind(after: event)
        return .change(change)
    }
}
