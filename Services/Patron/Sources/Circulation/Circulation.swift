import Foundation
import Logging
import ServiceSupport
import Shared

/// The book machine at work: each event on a patron's book is decided by the rules (`CirculationDecision`) from what
/// the change's locks read, and carried out in one transaction of the store. The same code runs over PostgreSQL
/// (`CirculationPostgresRepository`) and over the in-memory store of the tests.
struct Circulation: Sendable {
    let store: any CirculationStore
    let rules: CirculationRules

    struct Outcome: Sendable {
        var status: BookStatus
        /// False when the request changed nothing (an idempotent repeat).
        var changed: Bool
        /// The shelf stamp the change's write drew (`X-Internal-Shelf-Version`, see `ShelfPublishMiddleware`).
        var shelfStamp: Int64? = nil
    }

    /// Applies `event` to the patron's book in a transaction of its own.
    @discardableResult
    func apply(_ event: BookEvent, patronID: UUID, bookID: UUID, logger: Logger) async throws -> Outcome {
        try await store.transaction(logger: logger) { transaction in
            try await apply(event, patronID: patronID, bookID: bookID, in: transaction, logger: logger)
        }
    }

    /// Expires an offer (`offerExpired`) whose deadline has passed by `dueBy`; nil, changing nothing, when it has not
    /// or the state moved on (another replica was first).
    func expireOffer(patronID: UUID, bookID: UUID, dueBy: Date, logger: Logger) async throws -> Outcome? {
        try await store.transaction(logger: logger) { transaction in
            try await applyIfDue(.offerExpired, patronID: patronID, bookID: bookID, dueBy: dueBy, in: transaction, logger: logger)
        }
    }

    /// Expires a loan due by `dueBy`, as `expireOffer` does. A download still queued or under way when the loan ends
    /// (the machine has no expiry from those states) is first recorded as failed, then the loan expires: both in one
    /// transaction.
    func expireLoan(patronID: UUID, bookID: UUID, dueBy: Date, logger: Logger) async throws -> Outcome? {
        try await store.transaction(logger: logger) { transaction in
            if let expired = try await applyIfDue(.loanExpired, patronID: patronID, bookID: bookID, dueBy: dueBy, in: transaction, logger: logger) {
                return expired
            }
            guard try await applyIfDue(.downloadFailed, patronID: patronID, bookID: bookID, dueBy: dueBy, in: transaction, logger: logger) != nil
            else { return nil }
            return try await apply(.loanExpired, patronID: patronID, bookID: bookID, in: transaction, logger: logger)
        }
    }

    /// Extends an active loan by a loan period when nobody is waiting for the book.
    func renew(patronID: UUID, bookID: UUID, logger: Logger) async throws -> BookStatus {
        try await store.transaction(logger: logger) { transaction in
            guard try await transaction.lockLicense(bookID) != nil else { throw CirculationError.unknownBook(bookID) }
            let state = try await lockedState(patronID: patronID, bookID: bookID, in: transaction)
            guard state.isOnLoan else { throw CirculationError.notOnLoan(state) }
            guard try await transaction.queueLength(bookID: bookID) == 0 else { throw CirculationError.holdsWaiting }
            try await transaction.extendLoan(patronID: patronID, bookID: bookID)
            return try await transaction.status(patronID: patronID, bookID: bookID)
        }
    }

    /// Suspends the patron's hold until `until` (or moves the date), or ends the suspension (`until` nil). The hold
    /// keeps its place in the queue; while it is suspended no offer goes to it (`promoteHolds`). Ending it offers a
    /// copy that is free at once.
    func suspendHold(until: Date?, patronID: UUID, bookID: UUID, logger: Logger) async throws -> BookStatus {
        try await store.transaction(logger: logger) { transaction in
            guard let license = try await transaction.lockLicense(bookID) else { throw CirculationError.unknownBook(bookID) }
            let state = try await lockedState(patronID: patronID, bookID: bookID, in: transaction)
            let event: BookEvent = until == nil ? .resume : .suspend
            do throws(IllegalTransition) { _ = try BookMachine.next(from: state, on: event) } catch { throw CirculationError.illegal(error) }
            try await transaction.suspendHold(patronID: patronID, bookID: bookID, until: until)
            if until == nil {
                try await transaction.promoteHolds(bookID: bookID, license: license)
                try await transaction.figuresChanged(bookID: bookID)
            }
            logger.info(
                until == nil ? "Hold resumed" : "Hold suspended",
                metadata: ["patron.id": "\(patronID)", "book.id": "\(bookID)", "until": "\(until.map(WireFormat.formatDate) ?? "-")"]
            )
            return try await transaction.status(patronID: patronID, bookID: bookID)
        }
    }

    /// The state of the patron's row for the book under the patron's lock; 401 when the patron is gone.
    private func lockedState(patronID: UUID, bookID: UUID, in transaction: any CirculationTransaction) async throws -> BookState {
        guard let locked = try await transaction.lockPatron(patronID, bookID: bookID) else { throw AuthenticationRequired() }
        return locked.row?.state ?? .none
    }

    /// `event` only if the row's deadline (the offer's for `offerExpired`, the loan's otherwise) has passed by `dueBy`
    /// and the state allows it; nil otherwise. Takes the locks `apply` takes, once.
    private func applyIfDue(
        _ event: BookEvent,
        patronID: UUID,
        bookID: UUID,
        dueBy: Date,
        in transaction: any CirculationTransaction,
        logger: Logger
    ) async throws -> Outcome? {
        guard let license = try await transaction.lockLicense(bookID),
            let patron = try await transaction.lockPatron(patronID, bookID: bookID),
            let current = patron.row, let due = event == .offerExpired ? current.offerExpiresAt : current.dueAt, due <= dueBy,
            (try? BookMachine.next(from: current.state, on: event)) != nil
        else { return nil }
        return try await apply(event, patronID: patronID, bookID: bookID, license: license, patron: patron, in: transaction, logger: logger)
    }

    /// `event` inside a transaction the caller holds (account deletion returns every loan in its own).
    func apply(_ event: BookEvent, patronID: UUID, bookID: UUID, in transaction: any CirculationTransaction, logger: Logger) async throws -> Outcome {
        guard let license = try await transaction.lockLicense(bookID) else { throw CirculationError.unknownBook(bookID) }
        guard let patron = try await transaction.lockPatron(patronID, bookID: bookID) else { throw AuthenticationRequired() }
        return try await apply(event, patronID: patronID, bookID: bookID, license: license, patron: patron, in: transaction, logger: logger)
    }

    /// `event` under the licence's and the patron's locks, with what they read.
    private func apply(
        _ event: BookEvent,
        patronID: UUID,
        bookID: UUID,
        license: LicenseRow,
        patron: LockedPatron,
        in transaction: any CirculationTransaction,
        logger: Logger
    ) async throws -> Outcome {
        let (limits, current) = (patron.limits, patron.row)
        let state = current?.state ?? .none
        // A teen's or a child's card takes only the books it fits; what it already has stays until it ends.
        if [.borrow, .hold].contains(event), let limit = patron.audienceLimit, !limit.fits(license.audience) {
            throw CirculationError.notForThisCard(limit)
        }
        let decision = try CirculationDecision.decide(
            event,
            in: state,
            license: license,
            bookID: bookID,
            limits: limits,
            rules: rules,
            blocked: patron.blockedReason
        )
        guard case .change(let change) = decision else {
            return Outcome(status: try await transaction.status(patronID: patronID, bookID: bookID), changed: false)
        }
        let next = change.next
        if let holdLimit = change.holdLimit, try await transaction.holdCount(patronID: patronID) >= holdLimit {
            throw CirculationError.holdLimit(holdLimit)
        }
        if let savedLimit = change.savedLimit, try await transaction.savedCount(patronID: patronID) >= savedLimit {
            throw CirculationError.listLimit(list: "saved", limit: savedLimit)
        }
        // The loan limit and the free copies are checked by the write itself (in PostgreSQL, in its own statement).
        let limit = WriteLimit(loans: change.loanLimit, copies: change.copies)
        let (written, stamp) = try await transaction.write(
            next,
            after: event,
            exists: current != nil,
            limit: limit,
            patronID: patronID,
            bookID: bookID
        )
        if written == nil && next != .none {
            // Which limit stopped the write, counted again under the same locks.
            let (loans, occupied) = try await transaction.loanCounts(patronID: patronID, bookID: bookID)
            if let most = limit.loans, loans >= most { throw CirculationError.loanLimit(most) }
            if let copies = limit.copies, occupied >= copies { throw CirculationError.noCopiesAvailable(bookID, publicURL: rules.publicURL) }
            // Under the licence's and the patron's locks the row cannot have gone: a defect, not the patron's doing.
            throw Problem.internalError
        }
        if change.promotesHolds { try await transaction.promoteHolds(bookID: bookID, license: license) }
        if let kind = change.notification { try await transaction.notify(kind, patronID: patronID, bookID: bookID) }
        logger.info(
            "Book state changed",
            metadata: [
                "patron.id": "\(patronID)", "book.id": "\(bookID)", "event": "\(event.rawValue)", "from": "\(state.rawValue)",
                "to": "\(next.rawValue)",
            ]
        )
        // The answer needs no query but for a hold, whose place in the queue is counted (and which `promoteHolds` may
        // just have offered a copy): every other row is as written, and nothing after the write touches it.
        guard next != .waitingForLoan else {
            return Outcome(status: try await transaction.status(patronID: patronID, bookID: bookID), changed: true, shelfStamp: stamp)
        }
        var row = written ?? PatronBookRow(bookID: bookID, state: .none, copies: 0)
        row.copies = license.copies
        row.title = license.title
        row.authors = license.title == nil ? nil : license.authors
        row.hasCover = license.hasCover
        return Outcome(status: row.status(rules: rules), changed: true, shelfStamp: stamp)
    }
}
