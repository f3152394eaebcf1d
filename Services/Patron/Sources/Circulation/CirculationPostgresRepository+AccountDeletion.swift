import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// What a deleted account's loans, holds and offers become.
extension CirculationPostgresRepository {
    /// Ends a deleted account's every relation to a book, in the deletion's transaction: loans returned, holds
    /// cancelled, offers declined, then the rows removed. Returns the books whose free copies changed.
    func endCirculation(of patronID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> [UUID] {
        // The licences of the patron's books first, in book order, then (in `apply`) the patron: the order every
        // circulation request takes them in. Licence by licence, an ending held the patron while it waited for the
        // next licence, which the patron's own return held while it waited for the patron: a deadlock.
        try await connection.query(
            """
            SELECT book_id FROM licenses WHERE book_id IN (SELECT book_id FROM patron_books WHERE patron_id = \(patronID))
            ORDER BY book_id FOR UPDATE
            """,
            logger: logger
        )
        let rows = try await connection.query(
            "SELECT book_id, state FROM patron_books WHERE patron_id = \(patronID) ORDER BY book_id",
            logger: logger
        )
        var books: [(UUID, String)] = []
        for try await row in rows.decode((UUID, String).self) { books.append(row) }
        for (bookID, raw) in books {
            let state = BookState(rawValue: raw) ?? .none
            let event: BookEvent? =
                state.isOnLoan
                ? (BookMachine.allowedEvents(from: state).contains(.returnLoan) ? .returnLoan : nil)
                : state == .waitingForLoan ? .cancelHold : state == .loanOffered ? .decline : nil
            if let event {
                let transaction = Transaction(repository: self, connection: connection, logger: logger)
                _ = try await Circulation(store: self, rules: rules).apply(event, patronID: patronID, bookID: bookID, in: transaction, logger: logger)
            }
        }
        // Loans in a download state cannot be returned by the machine; they free their copy here all the same.
        let freed = try await connection.query(
            "DELETE FROM patron_books WHERE patron_id = \(patronID) RETURNING book_id, state",
            logger: logger
        )
        var affected: [UUID] = []
        for try await (bookID, state) in freed.decode((UUID, String).self) where BookState(rawValue: state)?.occupiesCopy == true {
            affected.append(bookID)
        }
        return affected
    }

    /// After a deleted account is gone: offers each of `books`' freed copies to the next patrons waiting and marks the
    /// book's figures due for catalog.
    func releaseCopies(of books: Set<UUID>, on connection: PostgresConnection, logger: Logger) async throws {
        for bookID in books {
            let licence = try await connection.query(
                "SELECT copies, open_access FROM licenses WHERE book_id = \(bookID) FOR UPDATE",
                logger: logger
            )
            for try await (copies, openAccess) in licence.decode((Int, Bool).self) {
                try await promoteHolds(bookID: bookID, copies: copies, openAccess: openAccess, on: connection, logger: logger)
            }
            try await FiguresPostgresRepository.markDue(bookID: bookID, on: connection, logger: logger)
        }
    }
}
