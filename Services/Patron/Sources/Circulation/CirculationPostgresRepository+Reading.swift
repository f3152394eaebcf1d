import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// What reading data needs to know of circulation: which books a patron may keep bookmarks for, and the loan history.
extension CirculationPostgresRepository {
    /// Bookmarks and positions are for books the patron has or had on loan, or open-access books.
    func isReadable(patronID: UUID, bookID: UUID, logger: Logger) async throws -> Bool {
        let rows = try await client.query(
            """
            SELECT EXISTS (SELECT 1 FROM loan_history WHERE patron_id = \(patronID) AND book_id = \(bookID))
                OR EXISTS (SELECT 1 FROM licenses WHERE book_id = \(bookID) AND open_access)
            """,
            logger: logger
        )
        for try await allowed in rows.decode(Bool.self) { return allowed }
        return false
    }

    func isKnownBook(_ bookID: UUID, logger: Logger) async throws -> Bool {
        for try await _ in try await client.query("SELECT 1 FROM licenses WHERE book_id = \(bookID)", logger: logger) { return true }
        return false
    }

    struct HistoryEntry: Encodable {
        var bookId: UUID
        var loanedAt: Date
        var endedAt: Date?
        var endReason: String?
    }

    /// One page of the patron's loan history, oldest first, after the entry numbered `after`.
    func loanHistory(patronID: UUID, after: Int64, limit: Int, logger: Logger) async throws -> [(number: Int64, entry: HistoryEntry)] {
        var result: [(Int64, HistoryEntry)] = []
        for try await (id, book, loaned, ended, reason) in try await client.query(
            """
            SELECT id, book_id, loaned_at, ended_at, end_reason FROM loan_history WHERE patron_id = \(patronID) AND id > \(after)
            ORDER BY id LIMIT \(limit)
            """,
            logger: logger
        ).decode((Int64, UUID, Date, Date?, String?).self) {
            result.append((id, HistoryEntry(bookId: book, loanedAt: loaned, endedAt: ended, endReason: reason)))
        }
        return result
    }
}
