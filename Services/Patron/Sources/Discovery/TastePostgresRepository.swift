import Foundation
import Logging
import PostgresNIO
import Shared

/// What loan history, ratings and favourites say about books and patrons, for catalog's related books and
/// recommendations. Only book ids leave: co-borrowing is counted over at least `minimumPatrons` distinct patrons,
/// so no answer reveals what one patron borrowed.
struct TastePostgresRepository: Sendable {
    let client: PostgresClient
    /// The fewest distinct patrons who must have borrowed two books for one to be shown beside the other.
    static let minimumPatrons = 3

    /// Books borrowed by at least `minimumPatrons` of the patrons who borrowed `bookIDs`, most shared first.
    func coBorrowed(with bookIDs: [UUID], excluding: [UUID] = [], limit: Int, logger: Logger) async throws -> [UUID] {
        guard !bookIDs.isEmpty else { return [] }
        let rows = try await client.query(
            """
            SELECT other.book_id FROM loan_history mine
            JOIN loan_history other ON other.patron_id = mine.patron_id AND other.book_id <> ALL(\(bookIDs))
            WHERE mine.book_id = ANY(\(bookIDs)) AND NOT (other.book_id = ANY(\(excluding)))
            GROUP BY other.book_id HAVING count(DISTINCT mine.patron_id) >= \(Self.minimumPatrons)
            ORDER BY count(DISTINCT mine.patron_id) DESC, other.book_id LIMIT \(limit)
            """,
            logger: logger
        )
        var result: [UUID] = []
        for try await id in rows.decode(UUID.self) { result.append(id) }
        return result
    }

    /// The patron's taste: books liked (favourites, ratings of 4 or 5, then loans, newest first) and every book the
    /// patron ever borrowed.
    func taste(patronID: UUID, logger: Logger) async throws -> (liked: [UUID], had: [UUID]) {
        let rows = try await client.query(
            """
            SELECT ARRAY(SELECT book_id FROM (
                    SELECT book_id, 2 AS weight, created_at AS at FROM favorites WHERE patron_id = \(patronID)
                    UNION ALL SELECT book_id, 1, updated_at FROM ratings WHERE patron_id = \(patronID) AND stars >= 4
                    UNION ALL SELECT book_id, 0, loaned_at FROM loan_history WHERE patron_id = \(patronID)) liked
                GROUP BY book_id ORDER BY max(weight) DESC, max(at) DESC LIMIT 50),
                ARRAY(SELECT DISTINCT book_id FROM loan_history WHERE patron_id = \(patronID) LIMIT 2000)
            """,
            logger: logger
        )
        for try await (liked, had) in rows.decode(([UUID], [UUID]).self) { return (liked, had) }
        return ([], [])
    }
}
