import Foundation
import Logging
import PostgresNIO

/// The console's circulation reports over `circulation_events` (migration 18), the hold queues and the loan history.
struct CirculationReportPostgresRepository: Sendable {
    let client: PostgresClient

    struct Day: Encodable, Sendable {
        let day: String
        let loans: Int
        let holds: Int
        let returns: Int
    }

    /// Loans (borrowed or accepted), holds placed and loans ended (returned or expired) per UTC day, every day of the
    /// period (zeros included).
    func perDay(_ period: ReportPeriod, logger: Logger) async throws -> [Day] {
        let rows = try await client.query(
            """
            SELECT d::date::text,
                count(e.id) FILTER (WHERE e.event IN ('borrow', 'accept'))::int,
                count(e.id) FILTER (WHERE e.event = 'hold')::int,
                count(e.id) FILTER (WHERE e.event IN ('return', 'loan_expired'))::int
            FROM generate_series(\(period.from)::date, \(period.to)::date, interval '1 day') AS d
            LEFT JOIN circulation_events e ON e.at >= d::date::timestamp AT TIME ZONE 'UTC'
                AND e.at < (d::date + 1)::timestamp AT TIME ZONE 'UTC'
            GROUP BY d ORDER BY d
            """,
            logger: logger
        )
        var days: [Day] = []
        for try await (day, loans, holds, returns) in rows.decode((String, Int, Int, Int).self) {
            days.append(Day(day: day, loans: loans, holds: holds, returns: returns))
        }
        return days
    }

    struct TopBook: Encodable, Sendable {
        let bookId: UUID
        let title: String?
        let loans: Int
    }

    /// The books lent most often in the period.
    func topBooks(_ period: ReportPeriod, limit: Int, logger: Logger) async throws -> [TopBook] {
        let (start, end) = period.bounds
        let rows = try await client.query(
            """
            SELECT e.book_id, l.title, count(*)::int FROM circulation_events e LEFT JOIN licenses l ON l.book_id = e.book_id
            WHERE e.event IN ('borrow', 'accept') AND e.at >= \(start) AND e.at < \(end)
            GROUP BY e.book_id, l.title ORDER BY 3 DESC, 2, 1 LIMIT \(limit)
            """,
            logger: logger
        )
        var books: [TopBook] = []
        for try await (book, title, loans) in rows.decode((UUID, String?, Int).self) {
            books.append(TopBook(bookId: book, title: title, loans: loans))
        }
        return books
    }

    struct HeldBook: Encodable, Sendable {
        let bookId: UUID
        let title: String?
        let copies: Int
        let holds: Int
        let holdsPerCopy: Double
        /// How long a hold placed now may wait: the queue's turns (holds per copy, rounded up) times the book's average
        /// loan (its ended loans, else the loan period).
        let expectedWaitDays: Int
    }

    /// The books whose holds per copy exceed `ratio` now (a book with no copy counts as one): what to buy more of.
    func holds(over ratio: Double, loanPeriod: TimeInterval, logger: Logger) async throws -> [HeldBook] {
        let rows = try await client.query(
            """
            SELECT l.book_id, l.title, l.copies, count(*)::int,
                coalesce((SELECT avg(extract(epoch FROM h.ended_at - h.loaned_at)) FROM loan_history h
                    WHERE h.book_id = l.book_id AND h.ended_at IS NOT NULL), \(loanPeriod))::float8
            FROM patron_books pb JOIN licenses l ON l.book_id = pb.book_id
            WHERE pb.state = 'waiting_for_loan' AND NOT l.open_access AND NOT l.withdrawn
            GROUP BY l.book_id, l.title, l.copies
            HAVING count(*)::float8 / greatest(l.copies, 1) > \(ratio)
            ORDER BY count(*)::float8 / greatest(l.copies, 1) DESC, l.title LIMIT 500
            """,
            logger: logger
        )
        var books: [HeldBook] = []
        for try await (book, title, copies, holds, averageLoan) in rows.decode((UUID, String?, Int, Int, Double).self) {
            let perCopy = Double(holds) / Double(max(copies, 1))
            books.append(
                HeldBook(
                    bookId: book,
                    title: title,
                    copies: copies,
                    holds: holds,
                    holdsPerCopy: (perCopy * 100).rounded() / 100,
                    expectedWaitDays: Int((perCopy.rounded(.up) * averageLoan / 86_400).rounded(.up))
                )
            )
        }
        return books
    }

    /// Every event of the period, oldest first, as it is read (for a CSV written while the rows arrive).
    /// Every event of the period: its day (UTC, `YYYY-MM-DD`), kind, book, title and patron, a day's events in the order
    /// of kind and book, not of time (the order within a day would tell the times again).
    func events(_ period: ReportPeriod, logger: Logger, _ each: (String, String, UUID, String?, UUID?) async throws -> Void) async throws {
        let (start, end) = period.bounds
        let rows = try await client.query(
            """
            SELECT to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, e.event, e.book_id, l.title, e.patron_id
            FROM circulation_events e LEFT JOIN licenses l ON l.book_id = e.book_id
            WHERE e.at >= \(start) AND e.at < \(end) ORDER BY day, e.event, e.book_id, e.patron_id
            """,
            logger: logger
        )
        for try await (day, event, book, title, patron) in rows.decode((String, String, UUID, String?, UUID?).self) {
            try await each(day, event, book, title, patron)
        }
    }

    /// Circulation events and ended loans older than `days` lose their patron (library privacy guidelines: keep who
    /// borrowed what no longer than needed); counts, figures and reports keep them. Returns how many rows it changed.
    @discardableResult
    func anonymise(olderThan days: Int, logger: Logger) async throws -> Int {
        var changed = 0
        let rows = try await client.query(
            """
            WITH events AS (
                UPDATE circulation_events SET patron_id = NULL
                WHERE patron_id IS NOT NULL AND at < now() - make_interval(days => \(days)::int) RETURNING 1),
            loans AS (
                UPDATE loan_history SET patron_id = NULL
                WHERE patron_id IS NOT NULL AND ended_at IS NOT NULL AND ended_at < now() - make_interval(days => \(days)::int) RETURNING 1)
            SELECT (SELECT count(*)::int FROM events) + (SELECT count(*)::int FROM loans)
            """,
            logger: logger
        )
        for try await count in rows.decode(Int.self) { changed = count }
        return changed
    }

    /// A deleted account's events stay counted, no longer linked to anyone.
    static func forget(patronID: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("UPDATE circulation_events SET patron_id = NULL WHERE patron_id = \(patronID)", logger: logger)
    }
}
