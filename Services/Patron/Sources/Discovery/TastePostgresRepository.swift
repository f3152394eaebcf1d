import Foundation
import Logging
import PostgresNIO
import Shared

/// What loan history, ratings and favourites say about books and patrons, for catalog's related books and
/// recommendations. Only book ids leave, and co-borrowing counts only established patrons (docs/SECURITY.md,
/// "Borrowing history"): at least `minimumPatrons` distinct patrons whose accounts are older than
/// `minimumAccountAge` must have borrowed both books. A few accounts made to borrow a rare book and everything else
/// would otherwise show exactly the other loans of the one real patron who borrowed it too.
struct TastePostgresRepository: Sendable {
    let client: PostgresClient
    /// The fewest distinct established patrons who must have borrowed two books for one to be shown beside the other.
    var minimumPatrons = 5
    /// Accounts younger than this are not counted (seconds).
    var minimumAccountAge: TimeInterval = 30 * 86_400

    /// Books borrowed by at least `minimumPatrons` of the established patrons who borrowed `bookIDs`, most shared first.
    func coBorrowed(with bookIDs: [UUID], excluding: [UUID] = [], limit: Int, logger: Logger) async throws -> [UUID] {
        guard !bookIDs.isEmpty else { return [] }
        let rows = try await client.query(
            """
            SELECT other.book_id FROM loan_history mine
            JOIN patrons p ON p.id = mine.patron_id AND p.created_at < now() - make_interval(secs => \(minimumAccountAge))
            JOIN loan_history other ON other.patron_id = mine.patron_id AND other.book_id <> ALL(\(bookIDs))
            WHERE mine.book_id = ANY(\(bookIDs)) AND NOT (other.book_id = ANY(\(excluding)))
            GROUP BY other.book_id HAVING count(DISTINCT mine.patron_id) >= \(minimumPatrons)
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
