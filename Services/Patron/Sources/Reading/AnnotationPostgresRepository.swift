import Foundation
import Logging
import PostgresNIO

/// What the annotations API reads beyond bookmarks and positions themselves: how many of each there are, in one query.
struct AnnotationPostgresRepository: Sendable {
    let client: PostgresClient

    /// How many bookmarks and positions the patron keeps, of one book or of all.
    func counts(patronID: UUID, bookID: UUID?, logger: Logger) async throws -> (bookmarks: Int, positions: Int) {
        let rows = try await client.query(
            """
            SELECT (SELECT count(*)::int FROM bookmarks WHERE patron_id = \(patronID) AND (\(bookID)::uuid IS NULL OR book_id = \(bookID))),
                   (SELECT count(*)::int FROM positions WHERE patron_id = \(patronID) AND (\(bookID)::uuid IS NULL OR book_id = \(bookID)))
            """,
            logger: logger
        )
        for try await counts in rows.decode((Int, Int).self) { return counts }
        return (0, 0)
    }
}
