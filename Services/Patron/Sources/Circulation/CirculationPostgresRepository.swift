import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// Loans, holds, offers and the per-book state of each patron, in PostgreSQL: circulation's store
/// (`CirculationStore`, in `+Transaction.swift`), its reads, and the expiry job's passes over many books.
///
/// Every change runs in one transaction that first locks the book's licence row: changes to one book are
/// serialised across every replica, so copies are never over-lent and the hold queue advances exactly once.
struct CirculationPostgresRepository: Sendable {
    let client: PostgresClient
    let rules: CirculationRules

    static let occupyingStates = BookState.allCases.filter(\.occupiesCopy).map(\.rawValue)
    static let loanStates = BookState.onLoan.map(\.rawValue)

    /// Ends the suspensions whose date has passed by `dueBy` and offers the copies free for those holds, book by book
    /// under the licence's lock (another replica doing the same finds nothing left). Returns how many holds it woke.
    func endSuspensions(dueBy: Date, logger: Logger) async throws -> Int {
        var books: [UUID] = []
        for try await id in try await client.query(
            "SELECT DISTINCT book_id FROM patron_books WHERE suspended_until <= \(dueBy) LIMIT 500",
            logger: logger
        ).decode(UUID.self) { books.append(id) }
        var woken = 0
        for bookID in books {
            woken += try await client.transaction(logger: logger) { connection -> Int in
                guard let license = try await lockLicense(bookID, on: connection, logger: logger) else { return 0 }
                var patrons: [UUID] = []
                for try await patronID in try await connection.query(
                    """
                    UPDATE patron_books SET suspended_until = NULL, updated_at = now()
                    WHERE book_id = \(bookID) AND suspended_until <= \(dueBy) RETURNING patron_id
                    """,
                    logger: logger
                ).decode(UUID.self) { patrons.append(patronID) }
                guard !patrons.isEmpty else { return 0 }
                for patronID in patrons {
                    try await NotificationPostgresRepository.record(
                        .holdResumed,
                        patronID: patronID,
                        bookID: bookID,
                        reference: "\(dueBy.timeIntervalSince1970)",
                        on: connection,
                        logger: logger
                    )
                }
                let count = patrons.count
                try await promoteHolds(bookID: bookID, copies: license.copies, openAccess: license.openAccess, on: connection, logger: logger)
                try await FiguresPostgresRepository.markDue(bookID: bookID, on: connection, logger: logger)
                return count
            }
        }
        return woken
    }

    // MARK: reading

    /// The patron's relation to one book (state `none` when there is none).
    func status(patronID: UUID, bookID: UUID, logger: Logger) async throws -> BookStatus {
        try await client.withConnection { try await status(patronID: patronID, bookID: bookID, on: $0, logger: logger) }
    }

    func status(patronID: UUID, bookID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> BookStatus {
        let rows = try await shelfRows(patronID: patronID, bookID: bookID, on: connection, logger: logger)
        if let row = rows.first { return row.status(rules: rules) }
        // A book this service holds no licence for (unknown, withdrawn, or not yet announced by catalog) is not found.
        for try await row in try await connection.run(LendableBook.self, bookID, logger: logger) {
            let (copies, title, authors, hasCover) = try row.decode((Int, String?, [String], Bool).self)
            let book = PatronBookRow(
                bookID: bookID,
                state: .none,
                copies: copies,
                title: title,
                authors: title == nil ? nil : authors,
                hasCover: hasCover
            )
            return book.status(rules: rules)
        }
        throw CirculationError.unknownBook(bookID)
    }

    /// Every book of the patron not in state NONE ("My books"), newest change first.
    func shelf(patronID: UUID, logger: Logger) async throws -> [PatronBookRow] {
        try await client.withConnection { try await shelfRows(patronID: patronID, bookID: nil, on: $0, logger: logger) }
    }

    func shelfRows(patronID: UUID, bookID: UUID?, on connection: PostgresConnection, logger: Logger) async throws -> [PatronBookRow] {
        let rows = try await connection.execute(ShelfRowsStatement(patronID: patronID, bookID: bookID), logger: logger)
        var result: [PatronBookRow] = []
        for try await (book, state, due, offer, placed, position, activePosition, suspendedUntil, copies, title, authors, hasCover) in rows {
            result.append(
                PatronBookRow(
                    bookID: book,
                    state: BookState(rawValue: state) ?? .none,
                    dueAt: due,
                    offerExpiresAt: offer,
                    holdPlacedAt: placed,
                    holdPosition: position,
                    activeHoldPosition: activePosition,
                    suspendedUntil: suspendedUntil,
                    copies: copies,
                    title: title,
                    authors: title == nil ? nil : authors,
                    hasCover: hasCover
                )
            )
        }
        return result
    }

    // MARK: steps

    func lockLicense(_ bookID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> LicenseRow? {
        for try await row in try await connection.run(LockLicense.self, bookID, logger: logger) {
            let (copies, openAccess, withdrawn, title, authors, hasCover, audience) = try row.decode(
                (Int, Bool, Bool, String?, [String], Bool, String?).self
            )
            return LicenseRow(
                copies: copies,
                openAccess: openAccess,
                withdrawn: withdrawn,
                title: title,
                authors: authors,
                hasCover: hasCover,
                audience: audience.flatMap(BookAudience.init(rawValue:))
            )
        }
        return nil
    }

    /// The patron's limits and row for the book under the patron's lock (`LockPatronAndRow`); nil when the patron is gone.
    func lockPatronAndRow(patronID: UUID, bookID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> LockedPatron? {
        for try await row in try await connection.run(LockPatronAndRow.self, patronID, bookID, logger: logger) {
            let (loans, holds, state, due, offer, blocked, type) = try row.decode((Int, Int, String?, Date?, Date?, String?, String?).self)
            let current = state.map {
                PatronBookRow(bookID: bookID, state: BookState(rawValue: $0) ?? .none, dueAt: due, offerExpiresAt: offer, copies: 0)
            }
            return LockedPatron(limits: (loans, holds), row: current, blockedReason: blocked, audienceLimit: AudienceLimit(patronType: type))
        }
        return nil
    }

    /// Offers the book to the patrons who have waited longest, one per free copy, passing over suspended holds (they
    /// keep their place); an open-access book (no copy to wait for) to every one of them. The one rule for every
    /// caller, which holds the licence's lock and passes what it read of it.
    func promoteHolds(bookID: UUID, copies: Int, openAccess: Bool, on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.run(
            PromoteHolds.self,
            bookID,
            rules.offerPeriod,
            openAccess,
            copies,
            Self.occupyingStates,
            logger: logger
        )
        var offered: [(UUID, Date)] = []
        for try await row in rows { offered.append(try row.decode((UUID, Date).self)) }
        for (patronID, expires) in offered {
            logger.info("Loan offered", metadata: ["patron.id": "\(patronID)", "book.id": "\(bookID)"])
            try await NotificationPostgresRepository.record(
                .loanOffered,
                patronID: patronID,
                bookID: bookID,
                reference: "\(expires.timeIntervalSince1970)",
                on: connection,
                logger: logger
            )
        }
    }

    /// A patron's books (or one of them) with what describes them: prepared once per connection, as every
    /// `/me/books` and every shelf published to catalog runs it.
    struct ShelfRowsStatement: PostgresPreparedStatement {
        static let sql = """
            SELECT pb.book_id, pb.state, pb.due_at, pb.offer_expires_at, pb.hold_placed_at,
                CASE WHEN pb.state = 'waiting_for_loan' THEN ahead.everyone + 1 END,
                CASE WHEN pb.state = 'waiting_for_loan' THEN ahead.active + 1 END, pb.suspended_until,
                coalesce(l.copies, 0), l.title, ARRAY(SELECT jsonb_array_elements_text(l.authors)), coalesce(l.has_cover, true)
            FROM patron_books pb LEFT JOIN licenses l ON l.book_id = pb.book_id
            LEFT JOIN LATERAL (SELECT count(*)::int AS everyone,
                    count(*) FILTER (WHERE q.suspended_until IS NULL OR q.suspended_until <= now())::int AS active
                FROM patron_books q WHERE q.book_id = pb.book_id AND q.state = 'waiting_for_loan'
                AND (q.hold_placed_at, q.patron_id) < (pb.hold_placed_at, pb.patron_id)
                -- Inside the subquery, so that the queue is counted for holds only (as the join's condition, it was
                -- counted for every book and then dropped).
                AND pb.state = 'waiting_for_loan') ahead ON true
            WHERE pb.patron_id = $1 AND ($2::uuid IS NULL OR pb.book_id = $2)
            ORDER BY pb.updated_at DESC, pb.book_id
            """
        typealias Row = (UUID, String, Date?, Date?, Date?, Int?, Int?, Date?, Int, String?, [String], Bool)

        var patronID: UUID
        var bookID: UUID?

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(patronID)
            bindings.append(bookID)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }
}
