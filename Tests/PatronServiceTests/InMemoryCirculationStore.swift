import Foundation
import Logging
import Shared

@testable import PatronService

/// Circulation's store in memory, for running the book machine without PostgreSQL: licences, patrons' limits and
/// rows in dictionaries. A transaction works on a copy and keeps it only when its body returns (nothing is kept when
/// it throws); the tests run changes one after another (nothing here locks between them).
final class InMemoryCirculationStore: CirculationStore, @unchecked Sendable {
    struct Row {
        var state: BookState
        var dueAt: Date?
        var offerExpiresAt: Date?
        var holdPlacedAt: Date?
        var suspendedUntil: Date?
    }

    struct Key: Hashable {
        var patron: UUID
        var book: UUID
    }

    struct Contents {
        var licenses: [UUID: LicenseRow] = [:]
        var limits: [UUID: (loans: Int, holds: Int)] = [:]
        var rows: [Key: Row] = [:]
        var notifications: [(kind: NotificationKind, patron: UUID, book: UUID)] = []
        var stamp: Int64 = 0
    }

    private let lock = NSLock()
    private var contents = Contents()
    /// The clock the store writes with.
    let now = Date()
    let rules: CirculationRules

    init(rules: CirculationRules) { self.rules = rules }

    var current: Contents { lock.withLock { contents } }

    func addBook(_ id: UUID, copies: Int, openAccess: Bool = false) {
        lock.withLock {
            contents.licenses[id] = LicenseRow(copies: copies, openAccess: openAccess, withdrawn: false, title: "Book", authors: [], hasCover: false)
        }
    }

    func addPatron(_ id: UUID, loans: Int = 5, holds: Int = 5) {
        lock.withLock { contents.limits[id] = (loans, holds) }
    }

    /// The kinds of notification the patron was left, oldest first.
    func notified(_ patron: UUID) -> [NotificationKind] { current.notifications.filter { $0.patron == patron }.map(\.kind) }

    func transaction<T: Sendable>(logger: Logger, _ body: (any CirculationTransaction) async throws -> T) async throws -> T {
        let transaction = Transaction(contents: current, now: now, rules: rules)
        let result = try await body(transaction)
        lock.withLock { contents = transaction.contents }
        return result
    }

    final class Transaction: CirculationTransaction {
        var contents: Contents
        let now: Date
        let rules: CirculationRules

        init(contents: Contents, now: Date, rules: CirculationRules) {
            self.contents = contents
            self.now = now
            self.rules = rules
        }

        func lockLicense(_ bookID: UUID) async throws -> LicenseRow? { contents.licenses[bookID] }

        func lockPatron(_ patronID: UUID, bookID: UUID) async throws -> LockedPatron? {
            guard let limits = contents.limits[patronID] else { return nil }
            let row = contents.rows[Key(patron: patronID, book: bookID)].map {
                PatronBookRow(bookID: bookID, state: $0.state, dueAt: $0.dueAt, offerExpiresAt: $0.offerExpiresAt, copies: 0)
            }
            return LockedPatron(limits: limits, row: row)
        }

        func holdCount(patronID: UUID) async throws -> Int {
            contents.rows.filter { $0.key.patron == patronID && [.waitingForLoan, .loanOffered].contains($0.value.state) }.count
        }

        func savedCount(patronID: UUID) async throws -> Int {
            contents.rows.filter { $0.key.patron == patronID && $0.value.state == .saved }.count
        }

        func loanCounts(patronID: UUID, bookID: UUID) async throws -> (loans: Int, occupied: Int) {
            (
                contents.rows.filter { $0.key.patron == patronID && $0.value.state.isOnLoan }.count,
                contents.rows.filter { $0.key.book == bookID && $0.value.state.occupiesCopy }.count
            )
        }

        func write(
            _ next: BookState,
            after event: BookEvent,
            exists: Bool,
            limit: WriteLimit,
            patronID: UUID,
            bookID: UUID
        ) async throws -> (row: PatronBookRow?, stamp: Int64?) {
            let key = Key(patron: patronID, book: bookID)
            contents.stamp += 1
            guard next != .none else {
                contents.rows[key] = nil
                return (nil, contents.stamp)
            }
            let (loans, occupied) = try await loanCounts(patronID: patronID, bookID: bookID)
            if let most = limit.loans, loans >= most { return (nil, nil) }
            if let copies = limit.copies, occupied >= copies { return (nil, nil) }
            var row = contents.rows[key] ?? Row(state: next)
            row.state = next
            // The wall clock, not `now`: holds placed one after the other keep their order.
            if next == .waitingForLoan { row.holdPlacedAt = Date() }
            if next != .loanOffered && next != .loanOfferExpired { row.offerExpiresAt = nil }
            if event == .borrow || event == .accept { row.dueAt = now.addingTimeInterval(rules.loanPeriod) }
            row.suspendedUntil = nil
            contents.rows[key] = row
            let written = PatronBookRow(bookID: bookID, state: next, dueAt: row.dueAt, offerExpiresAt: row.offerExpiresAt, copies: 0)
            return (written, contents.stamp)
        }

        func promoteHolds(bookID: UUID, license: LicenseRow) async throws {
            let waiting = contents.rows.filter {
                $0.key.book == bookID && $0.value.state == .waitingForLoan && ($0.value.suspendedUntil ?? now) <= now
            }
            .sorted { ($0.value.holdPlacedAt ?? now, $0.key.patron.uuidString) < ($1.value.holdPlacedAt ?? now, $1.key.patron.uuidString) }
            let occupied = contents.rows.filter { $0.key.book == bookID && $0.value.state.occupiesCopy }.count
            let free = license.openAccess ? waiting.count : max(0, license.copies - occupied)
            for (key, _) in waiting.prefix(free) {
                contents.rows[key]?.state = .loanOffered
                contents.rows[key]?.offerExpiresAt = now.addingTimeInterval(rules.offerPeriod)
                contents.rows[key]?.suspendedUntil = nil
                contents.notifications.append((.loanOffered, key.patron, bookID))
            }
        }

        func notify(_ kind: NotificationKind, patronID: UUID, bookID: UUID) async throws {
            contents.notifications.append((kind, patronID, bookID))
        }

        func queueLength(bookID: UUID) async throws -> Int {
            contents.rows.filter { $0.key.book == bookID && [.waitingForLoan, .loanOffered].contains($0.value.state) }.count
        }

        func extendLoan(patronID: UUID, bookID: UUID) async throws {
            contents.rows[Key(patron: patronID, book: bookID)]?.dueAt = now.addingTimeInterval(rules.loanPeriod)
        }

        func suspendHold(patronID: UUID, bookID: UUID, until: Date?) async throws {
            contents.rows[Key(patron: patronID, book: bookID)]?.suspendedUntil = until
        }

        /// No catalog to tell.
        func figuresChanged(bookID: UUID) async throws {}

        func status(patronID: UUID, bookID: UUID) async throws -> BookStatus {
            guard let license = contents.licenses[bookID], !license.withdrawn else { throw CirculationError.unknownBook(bookID) }
            let row = contents.rows[Key(patron: patronID, book: bookID)]
            var position: Int?
            if let row, row.state == .waitingForLoan, let placed = row.holdPlacedAt {
                position =
                    contents.rows.filter { $0.key.book == bookID && $0.value.state == .waitingForLoan && ($0.value.holdPlacedAt ?? now) < placed }
                    .count + 1
            }
            return PatronBookRow(
                bookID: bookID,
                state: row?.state ?? .none,
                dueAt: row?.dueAt,
                offerExpiresAt: row?.offerExpiresAt,
                holdPlacedAt: row?.holdPlacedAt,
                holdPosition: position,
                suspendedUntil: row?.suspendedUntil,
                copies: license.copies,
                title: license.title,
                authors: license.authors,
                hasCover: license.hasCover
            ).status(rules: rules, now: now)
        }
    }
}
