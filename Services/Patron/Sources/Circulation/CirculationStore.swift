import Foundation
import Logging
import Shared

/// Where circulation keeps its rows: `Circulation` runs each change in one of the store's transactions and asks it
/// only what the change needs. PostgreSQL's store (`CirculationPostgresRepository`) takes the row locks that make
/// concurrent changes correct across replicas and keeps the SQL; `InMemoryCirculationStore` (tests) runs the same
/// rules over dictionaries.
protocol CirculationStore: Sendable {
    /// Runs `body` in one transaction: everything it wrote is kept when it returns, nothing when it throws.
    func transaction<T: Sendable>(logger: Logger, _ body: (any CirculationTransaction) async throws -> T) async throws -> T
}

/// What one change reads and writes, inside its transaction. The licence's lock comes first, then the patron's: every
/// change takes them in that order.
protocol CirculationTransaction {
    /// The book's licence, locked for the rest of the transaction; nil for a book without one.
    func lockLicense(_ bookID: UUID) async throws -> LicenseRow?
    /// The patron's limits and row for the book, under the patron's lock; nil when the patron is gone.
    func lockPatron(_ patronID: UUID, bookID: UUID) async throws -> LockedPatron?
    /// The patron's holds (waiting or offered).
    func holdCount(patronID: UUID) async throws -> Int
    /// The patron's saved books.
    func savedCount(patronID: UUID) async throws -> Int
    /// Writes the row's new state (or deletes it for `none`) with the loan's history, if `limit` allows: the row as
    /// written (nil when it is gone or a limit stopped it) and the shelf stamp the write drew.
    func write(
        _ next: BookState,
        after event: BookEvent,
        exists: Bool,
        limit: WriteLimit,
        patronID: UUID,
        bookID: UUID
    ) async throws -> (row: PatronBookRow?, stamp: Int64?)
    /// The patron's loans and the copies of the book in use, counted under the change's locks.
    func loanCounts(patronID: UUID, bookID: UUID) async throws -> (loans: Int, occupied: Int)
    /// Offers the book to the patrons who have waited longest, one per free copy (every one of them for open access),
    /// passing over suspended holds; each offered patron is notified.
    func promoteHolds(bookID: UUID, license: LicenseRow) async throws
    /// Records a notification for the patron.
    func notify(_ kind: NotificationKind, patronID: UUID, bookID: UUID) async throws
    /// The holds on the book (waiting or offered).
    func queueLength(bookID: UUID) async throws -> Int
    /// Extends the patron's loan of the book to a loan period from now.
    func extendLoan(patronID: UUID, bookID: UUID) async throws
    /// Suspends the patron's hold until `until` (nil: ends the suspension).
    func suspendHold(patronID: UUID, bookID: UUID, until: Date?) async throws
    /// The book's circulation figures (free copies, holds) are due to be sent to catalog again.
    func figuresChanged(bookID: UUID) async throws
    /// The patron's relation to the book, as the answer shows it.
    func status(patronID: UUID, bookID: UUID) async throws -> BookStatus
}

/// What the licence's lock read of a book.
struct LicenseRow: Sendable {
    var copies: Int
    var openAccess: Bool
    var withdrawn: Bool
    var title: String?
    var authors: [String]
    var hasCover: Bool
    /// Who the book is for (nil: not stated).
    var audience: BookAudience? = nil
}

/// What the patron's lock read: their limits and their row for the book (nil without one).
struct LockedPatron: Sendable {
    var limits: (loans: Int, holds: Int)
    var row: PatronBookRow?
    /// Why staff blocked the patron, nil when they may borrow (`PatronAdminController`).
    var blockedReason: String? = nil
    /// A teen's or a child's card: the books it may borrow and hold.
    var audienceLimit: AudienceLimit? = nil
}

/// What a write checks before it writes (nil: not checked): the patron's loan limit, the book's copies.
struct WriteLimit: Sendable {
    var loans: Int?
    var copies: Int?
}
