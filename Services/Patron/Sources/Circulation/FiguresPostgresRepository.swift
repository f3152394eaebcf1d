import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// Circulation figures of books (copies, availability, holds, checkouts, rating) for catalog. A change only marks its
/// book's figures as due, in its own transaction (`markDue`, or the mark inside a circulation write); the outbox's
/// pass works out the figures of the books due, many at once, and queues them (`queueDue`).
enum FiguresPostgresRepository {
    /// Marks the book `book` (a parameter, `$2`) due, the mark drawn once its row is locked: a book's marks grow in the
    /// order its changes commit. A fragment of a change's own statement, marking when its CTE `written` has a row and
    /// the parameter `flag` is true.
    static func markingCTE(book: String, flag: String) -> String {
        """
        marked AS (INSERT INTO figures_due (book_id, mark) SELECT \(book)::uuid, nextval('figures_mark_seq') FROM written WHERE \(flag)::bool
            ON CONFLICT (book_id) DO UPDATE SET mark = nextval('figures_mark_seq'))
        """
    }

    /// $1 book; prepared (`PreparedSQL`).
    enum MarkDue: PreparedSQL {
        static let sql = """
            INSERT INTO figures_due (book_id, mark) VALUES ($1::uuid, nextval('figures_mark_seq'))
            ON CONFLICT (book_id) DO UPDATE SET mark = nextval('figures_mark_seq')
            """
    }

    /// $1 the books due, $2 their marks, $3 their outbox keys, $4 their paths, $5 the states that occupy a copy. The
    /// figures as they stand, each with its book's mark as version, into the outbox; the payload is
    /// `CirculationFigures` built in SQL (its coding keys; `FiguresTests` decodes it). A book without a licence has
    /// no figures to send. Undelivered figures are replaced only by a higher version: two passes can queue one book
    /// at once, and the one that read an older mark may have read the book before the newer change.
    enum Queue: PreparedSQL {
        static let sql = """
            INSERT INTO outbox (key, path, payload)
            SELECT due.key, due.path, jsonb_build_object('bookId', l.book_id, 'copiesTotal', l.copies,
                'copiesAvailable', CASE WHEN l.open_access THEN l.copies ELSE greatest(0, l.copies - (SELECT count(*)::int
                    FROM patron_books WHERE book_id = l.book_id AND state = ANY($5::text[]))) END,
                'holds', (SELECT count(*)::int FROM patron_books WHERE book_id = l.book_id AND state IN ('waiting_for_loan', 'loan_offered')),
                'checkouts', l.checkouts,
                'ratingAverage', (SELECT avg(stars)::float8 FROM ratings WHERE book_id = l.book_id),
                'ratingCount', (SELECT count(*)::int FROM ratings WHERE book_id = l.book_id),
                'version', due.mark)
            FROM unnest($1::uuid[], $2::int8[], $3::text[], $4::text[]) AS due (book_id, mark, key, path)
            JOIN licenses l ON l.book_id = due.book_id
            ORDER BY due.key
            \(OutboxPostgresRepository.replacingUndelivered(when: "(outbox.payload ->> 'version')::int8 < (EXCLUDED.payload ->> 'version')::int8"))
            """
    }

    /// Figures' outbox keys: `figures:<book id>`. The deliverer sends those due together (`InternalRoute.figures`).
    static let keyPrefix = "figures:"

    static func markDue(bookID: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        for try await _ in try await connection.run(MarkDue.self, bookID, logger: logger) {}
    }

    /// Queues the figures of up to `limit` books due, oldest mark first, and clears their marks unless a change marked
    /// them again meanwhile (its figures then go out on the next pass); returns how many marks it read. The figures are
    /// read after the marks (a later statement's snapshot), so they show at least the changes that made them due.
    /// A mark that a change in progress holds is left to the next pass rather than waited for.
    @discardableResult
    static func queueDue(client: PostgresClient, limit: Int = 200, logger: Logger) async throws -> Int {
        var due: [(UUID, Int64)] = []
        for try await row in try await client.query(
            "SELECT book_id, mark FROM figures_due ORDER BY mark LIMIT \(limit)",
            logger: logger
        ).decode((UUID, Int64).self) { due.append(row) }
        guard !due.isEmpty else { return 0 }
        let (books, marks) = (due.map(\.0), due.map(\.1))
        for try await _ in try await client.run(
            Queue.self,
            books,
            marks,
            books.map { keyPrefix + $0.lowercased },
            books.map { InternalRoute.bookFigures($0).path },
            CirculationPostgresRepository.occupyingStates,
            logger: logger
        ) {}
        try await client.query(
            """
            DELETE FROM figures_due WHERE book_id IN (
                SELECT book_id FROM figures_due f JOIN unnest(\(books), \(marks)) AS done (id, mark) ON f.book_id = done.id AND f.mark = done.mark
                FOR UPDATE OF f SKIP LOCKED)
            """,
            logger: logger
        )
        return due.count
    }
}
