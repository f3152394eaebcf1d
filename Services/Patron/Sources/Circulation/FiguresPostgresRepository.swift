import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// Circulation figures of one book (copies, availability, holds, checkouts, rating), queued for catalog in the
/// caller's transaction with a new version.
enum FiguresPostgresRepository {
    /// $1 book, $2 the states that occupy a copy, $3 the outbox key, $4 its path. One statement, prepared
    /// (`PreparedSQL`): every borrow and return runs it. The payload is `CirculationFigures` built in SQL (its
    /// coding keys; `FiguresTests` decodes it), as a second statement to enqueue it cost a round trip.
    enum Publish: PreparedSQL {
        static let sql = """
            WITH bumped AS (
                UPDATE licenses SET figures_version = figures_version + 1 WHERE book_id = $1::uuid
                RETURNING copies, open_access, checkouts, figures_version),
            counted AS (
                SELECT b.*, (SELECT count(*)::int FROM patron_books WHERE book_id = $1::uuid AND state = ANY($2::text[])) AS occupied,
                    (SELECT count(*)::int FROM patron_books WHERE book_id = $1::uuid AND state IN ('waiting_for_loan', 'loan_offered')) AS holds,
                    (SELECT avg(stars)::float8 FROM ratings WHERE book_id = $1::uuid) AS rating_average,
                    (SELECT count(*)::int FROM ratings WHERE book_id = $1::uuid) AS rating_count
                FROM bumped b)
            INSERT INTO outbox (key, path, payload)
            SELECT $3::text, $4::text, jsonb_build_object('bookId', $1::uuid, 'copiesTotal', copies,
                'copiesAvailable', CASE WHEN open_access THEN copies ELSE greatest(0, copies - occupied) END, 'holds', holds,
                'checkouts', checkouts, 'ratingAverage', rating_average, 'ratingCount', rating_count, 'version', figures_version)
            FROM counted
            \(OutboxPostgresRepository.replacingUndelivered)
            """
    }

    /// Figures' outbox keys: `figures:<book id>`. The deliverer sends those due together (`InternalRoute.figures`).
    static let keyPrefix = "figures:"

    static func publish(bookID: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.run(
            Publish.self,
            bookID,
            CirculationPostgresRepository.occupyingStates,
            keyPrefix + bookID.lowercased,
            InternalRoute.bookFigures(bookID).path,
            logger: logger
        )
        for try await _ in rows {}
    }
}
