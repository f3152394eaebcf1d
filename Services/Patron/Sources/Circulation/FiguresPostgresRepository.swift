import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// Circulation figures of one book (copies, availability, holds, checkouts, rating), queued for catalog in the
/// caller's transaction with a new version.
enum FiguresPostgresRepository {
    /// $1 book, $2 the states that occupy a copy; prepared (`PreparedSQL`): every borrow and return runs it.
    enum Bump: PreparedSQL {
        static let sql = """
            WITH bumped AS (
                UPDATE licenses SET figures_version = figures_version + 1 WHERE book_id = $1::uuid
                RETURNING copies, open_access, checkouts, figures_version)
            SELECT b.copies, b.open_access, b.checkouts, b.figures_version,
                (SELECT count(*)::int FROM patron_books WHERE book_id = $1::uuid AND state = ANY($2::text[])),
                (SELECT count(*)::int FROM patron_books WHERE book_id = $1::uuid AND state IN ('waiting_for_loan', 'loan_offered')),
                (SELECT avg(stars)::float8 FROM ratings WHERE book_id = $1::uuid),
                (SELECT count(*)::int FROM ratings WHERE book_id = $1::uuid)
            FROM bumped b
            """
    }

    static func publish(bookID: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        var bumped: [(Int, Bool, Int, Int64, Int, Int, Double?, Int)] = []
        for try await row in try await connection.run(Bump.self, bookID, CirculationPostgresRepository.occupyingStates, logger: logger) {
            bumped.append(try row.decode((Int, Bool, Int, Int64, Int, Int, Double?, Int).self))
        }
        for (copies, openAccess, checkouts, version, occupied, holds, average, ratings) in bumped {
            let figures = CirculationFigures(
                bookId: bookID,
                copiesTotal: copies,
                copiesAvailable: openAccess ? copies : max(0, copies - occupied),
                holds: holds,
                checkouts: checkouts,
                ratingAverage: average,
                ratingCount: ratings,
                version: version
            )
            try await OutboxPostgresRepository.enqueue(
                key: "figures:\(bookID.lowercased)",
                path: InternalRoute.bookFigures(bookID).path,
                payload: figures,
                on: connection,
                logger: logger
            )
        }
    }
}
