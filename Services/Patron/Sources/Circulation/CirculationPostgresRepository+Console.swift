import Foundation
import Logging
import PostgresNIO

/// What a patron's hidden books are, and the counts the operator console shows.
extension CirculationPostgresRepository {
    struct IgnoredBook: Codable, Sendable {
        var bookId: UUID
        var title: String?
        var authors: [String]?
        var ignoredAt: Date
    }

    /// The books the patron hid from their feeds, most recently hidden first, with the titles patron knows.
    func ignoredBooks(patronID: UUID, logger: Logger) async throws -> [IgnoredBook] {
        let rows = try await client.query(
            """
            SELECT i.book_id, l.title, l.authors::text, i.created_at FROM ignored_books i LEFT JOIN licenses l USING (book_id)
            WHERE i.patron_id = \(patronID) ORDER BY i.created_at DESC, i.book_id
            """,
            logger: logger
        )
        var books: [IgnoredBook] = []
        for try await (id, title, authors, at) in rows.decode((UUID, String?, String?, Date).self) {
            let names = authors.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) }
            books.append(IgnoredBook(bookId: id, title: title, authors: names, ignoredAt: at))
        }
        return books
    }

    struct CirculationDashboard: Codable, Sendable {
        var patrons: Int
        var loans: Int
        var holds: Int
        var offers: Int
        var loansToday: Int
    }

    /// The console's dashboard figures: patrons, active loans, holds waiting, offers open, loans taken in the last 24 hours
    /// (returned ones too: from the loan history).
    func dashboard(logger: Logger) async throws -> CirculationDashboard {
        let rows = try await client.query(
            """
            SELECT (SELECT count(*) FROM patrons)::int,
                count(*) FILTER (WHERE state IN ('not_downloaded', 'download_queued', 'downloading', 'download_failed', 'download_completed', 'opened'))::int,
                count(*) FILTER (WHERE state = 'waiting_for_loan')::int, count(*) FILTER (WHERE state = 'loan_offered')::int,
                (SELECT count(*) FROM loan_history WHERE loaned_at > now() - interval '1 day')::int
            FROM patron_books
            """,
            logger: logger
        )
        for try await (patrons, loans, holds, offers, today) in rows.decode((Int, Int, Int, Int, Int).self) {
            return CirculationDashboard(patrons: patrons, loans: loans, holds: holds, offers: offers, loansToday: today)
        }
        return CirculationDashboard(patrons: 0, loans: 0, holds: 0, offers: 0, loansToday: 0)
    }
}
