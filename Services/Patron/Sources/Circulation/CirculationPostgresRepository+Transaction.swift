import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import Shared

/// PostgreSQL as circulation's store: a change's transaction is a database transaction, its locks row locks
/// (`LockLicense`, then `LockPatronAndRow`), its limits counted in the statements that write.
extension CirculationPostgresRepository: CirculationStore {
    /// The events after which a book's figures (copies free, holds) are due again.
    static let figuresEvents: Set<BookEvent> = [.borrow, .hold, .cancelHold, .accept, .decline, .returnLoan, .offerExpired, .loanExpired]
    /// The events the console's reports count (`circulation_events`; offers and renewals are recorded where they are made).
    static let reportedEvents: Set<BookEvent> = [.borrow, .hold, .cancelHold, .accept, .decline, .returnLoan, .offerExpired, .loanExpired]

    func transaction<T: Sendable>(logger: Logger, _ body: (any CirculationTransaction) async throws -> T) async throws -> T {
        try await client.transaction(logger: logger) { connection in
            try await IdempotencyClaim.make(on: connection, logger: logger)
            return try await body(Transaction(repository: self, connection: connection, logger: logger))
        }
    }

    /// One change's reads and writes on its connection.
    struct Transaction: CirculationTransaction {
        let repository: CirculationPostgresRepository
        let connection: PostgresConnection
        let logger: Logger

        func lockLicense(_ bookID: UUID) async throws -> LicenseRow? {
            try await repository.lockLicense(bookID, on: connection, logger: logger)
        }

        func lockPatron(_ patronID: UUID, bookID: UUID) async throws -> LockedPatron? {
            try await repository.lockPatronAndRow(patronID: patronID, bookID: bookID, on: connection, logger: logger)
        }

        func holdCount(patronID: UUID) async throws -> Int {
            try await count(
                "SELECT count(*)::int FROM patron_books WHERE patron_id = \(patronID) AND state IN ('waiting_for_loan', 'loan_offered')"
            )
        }

        func savedCount(patronID: UUID) async throws -> Int {
            try await count("SELECT count(*)::int FROM patron_books WHERE patron_id = \(patronID) AND state = 'saved'")
        }

        private func count(_ query: PostgresQuery) async throws -> Int {
            for try await count in try await connection.query(query, logger: logger).decode(Int.self) { return count }
            return 0
        }

        /// Writes the row's new state with the loan's history (`InsertRow`, `UpdateRow`, `DeleteRow`) if `limit` allows:
        /// the limits are counted in the writing statement itself.
        func write(
            _ next: BookState,
            after event: BookEvent,
            exists: Bool,
            limit: WriteLimit,
            patronID: UUID,
            bookID: UUID
        ) async throws -> (row: PatronBookRow?, stamp: Int64?) {
            let startsLoan = event == .borrow || event == .accept
            let endsLoan = event == .returnLoan || event == .loanExpired ? event.rawValue : nil
            let movesFigures = CirculationPostgresRepository.figuresEvents.contains(event)
            let reported = CirculationPostgresRepository.reportedEvents.contains(event) ? event.rawValue : nil
            guard next != .none else {
                var stamp: Int64?
                for try await row in try await connection.run(
                    CirculationPostgresRepository.DeleteRow.self,
                    patronID,
                    bookID,
                    endsLoan,
                    movesFigures,
                    reported,
                    logger: logger
                ) {
                    stamp = try row.decode(Int64.self)
                }
                return (nil, stamp)
            }
            // `InsertRow` and `UpdateRow` take the same parameters and answer the same columns.
            let values: [(any PostgresThrowingDynamicTypeEncodable)?] = [
                patronID, bookID, next.rawValue, startsLoan, repository.rules.loanPeriod, endsLoan, limit.loans, limit.copies,
                CirculationPostgresRepository.loanStates,
                CirculationPostgresRepository.occupyingStates, movesFigures, reported,
            ]
            func written<Statement: PreparedSQL>(_ statement: Statement.Type) async throws -> (row: PatronBookRow?, stamp: Int64?) {
                for try await row in try await connection.run(statement, values: values, logger: logger) {
                    let (due, offer, suspendedUntil, stamp) = try row.decode((Date?, Date?, Date?, Int64).self)
                    let written = PatronBookRow(
                        bookID: bookID,
                        state: next,
                        dueAt: due,
                        offerExpiresAt: offer,
                        suspendedUntil: suspendedUntil,
                        copies: 0
                    )
                    return (written, stamp)
                }
                return (nil, nil)
            }
            return exists
                ? try await written(CirculationPostgresRepository.UpdateRow.self) : try await written(CirculationPostgresRepository.InsertRow.self)
        }

        func loanCounts(patronID: UUID, bookID: UUID) async throws -> (loans: Int, occupied: Int) {
            let rows = try await connection.run(
                CirculationPostgresRepository.LoanCounts.self,
                patronID,
                CirculationPostgresRepository.loanStates,
                bookID,
                CirculationPostgresRepository.occupyingStates,
                logger: logger
            )
            for try await row in rows { return try row.decode((Int, Int).self) }
            return (0, 0)
        }

        func promoteHolds(bookID: UUID, license: LicenseRow) async throws {
            try await repository.promoteHolds(bookID: bookID, copies: license.copies, openAccess: license.openAccess, on: connection, logger: logger)
        }

        func notify(_ kind: NotificationKind, patronID: UUID, bookID: UUID) async throws {
            try await NotificationPostgresRepository.record(
                kind,
                patronID: patronID,
                bookID: bookID,
                reference: "\(Date().timeIntervalSince1970)",
                on: connection,
                logger: logger
            )
        }

        func queueLength(bookID: UUID) async throws -> Int {
            try await count(
                "SELECT count(*)::int FROM patron_books WHERE book_id = \(bookID) AND state IN ('waiting_for_loan', 'loan_offered')"
            )
        }

        func extendLoan(patronID: UUID, bookID: UUID) async throws {
            try await connection.query(
                """
                WITH renewed AS (
                    UPDATE patron_books SET due_at = now() + make_interval(secs => \(repository.rules.loanPeriod)), updated_at = now()
                    WHERE patron_id = \(patronID) AND book_id = \(bookID) RETURNING patron_id, book_id)
                INSERT INTO circulation_events (event, patron_id, book_id) SELECT 'renew', patron_id, book_id FROM renewed
                """,
                logger: logger
            )
        }

        func suspendHold(patronID: UUID, bookID: UUID, until: Date?) async throws {
            try await connection.query(
                "UPDATE patron_books SET suspended_until = \(until), updated_at = now() WHERE patron_id = \(patronID) AND book_id = \(bookID)",
                logger: logger
            )
        }

        func figuresChanged(bookID: UUID) async throws {
            try await FiguresPostgresRepository.markDue(bookID: bookID, on: connection, logger: logger)
        }

        func status(patronID: UUID, bookID: UUID) async throws -> BookStatus {
            try await repository.status(patronID: patronID, bookID: bookID, on: connection, logger: logger)
        }
    }
}
