import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// Purchase suggestions' rows: a patron's, staff's answers and merges (a merged suggestion follows the one it joined:
/// both are written together), and their arrival with a book of the same title.
struct SuggestionPostgresRepository: Sendable {
    let client: PostgresClient
    /// Suggestions a patron may have waiting (open or ordered) at once.
    static let waitingLimit = 20

    private static let columns = "id, title, author, note, status, answer, book_id, created_at"

    /// The suggestions of rows that select `columns`, then (`counted`) how many patrons asked.
    private static func decode(_ rows: PostgresRowSequence, counted: Bool = false) async throws -> [PurchaseSuggestion] {
        var result: [PurchaseSuggestion] = []
        for try await row in rows {
            let cells = row.makeRandomAccess()
            func cell<T: PostgresDecodable>(_ index: Int, _ type: T.Type = T.self) throws -> T { try cells[index].decode(T.self) }
            result.append(
                PurchaseSuggestion(
                    id: try cell(0),
                    title: try cell(1),
                    author: try cell(2),
                    note: try cell(3),
                    status: PurchaseSuggestion.Status(rawValue: try cell(4, String.self)) ?? .open,
                    answer: try cell(5),
                    bookId: try cell(6),
                    createdAt: try cell(7),
                    askedBy: counted ? try cell(8, Int.self) : nil
                )
            )
        }
        return result
    }

    /// The patron's suggestion of this title: the one they have waiting already (`created` false), or a new one.
    /// Throws 409 `suggestion-limit` past `waitingLimit` waiting ones.
    func suggest(_ request: SuggestionRequest, patronID: UUID, logger: Logger) async throws -> (suggestion: PurchaseSuggestion, created: Bool) {
        let key = PurchaseSuggestion.titleKey(request.title)
        return try await client.transaction(logger: logger) { connection in
            // The patron's row, locked: their suggestions are counted and written one request at a time.
            _ = try await connection.query("SELECT 1 FROM patrons WHERE id = \(patronID) FOR UPDATE", logger: logger).collect()
            let waiting = try await Self.decode(
                try await connection.query(
                    """
                    SELECT \(unescaped: Self.columns) FROM purchase_suggestions
                    WHERE patron_id = \(patronID) AND status IN ('open', 'ordered') ORDER BY title_key = \(key) DESC
                    """,
                    logger: logger
                )
            )
            if let same = waiting.first, PurchaseSuggestion.titleKey(same.title) == key { return (same, false) }
            guard waiting.count < Self.waitingLimit else {
                throw Problem.conflict("suggestion-limit", "You have \(Self.waitingLimit) suggestions waiting; wait for the library's answers")
            }
            let rows = try await connection.query(
                """
                INSERT INTO purchase_suggestions (id, patron_id, title, author, note, title_key)
                VALUES (\(UUID()), \(patronID), \(request.title), \(request.author), \(request.note), \(key))
                RETURNING \(unescaped: Self.columns)
                """,
                logger: logger
            )
            guard let created = try await Self.decode(rows).first else { throw Problem.notFound("No patron \(patronID)") }
            return (created, true)
        }
    }

    /// The patron's suggestions, newest first.
    func mine(patronID: UUID, logger: Logger) async throws -> [PurchaseSuggestion] {
        try await Self.decode(
            try await client.query(
                "SELECT \(unescaped: Self.columns) FROM purchase_suggestions WHERE patron_id = \(patronID) ORDER BY created_at DESC, id LIMIT 200",
                logger: logger
            )
        )
    }

    /// Staff's list: every suggestion no other joined, with how many patrons asked, waiting ones first (most asked,
    /// then oldest), then the answered ones (newest first).
    func staffList(logger: Logger) async throws -> [PurchaseSuggestion] {
        let rows = try await client.query(
            """
            SELECT \(unescaped: Self.columns), 1 + (SELECT count(*)::int FROM purchase_suggestions m WHERE m.merged_into = s.id) AS asked_by
            FROM purchase_suggestions s WHERE s.merged_into IS NULL
            ORDER BY s.status IN ('open', 'ordered') DESC, asked_by DESC,
                CASE WHEN s.status IN ('open', 'ordered') THEN s.created_at END, s.created_at DESC
            LIMIT 500
            """,
            logger: logger
        )
        return try await Self.decode(rows, counted: true)
    }

    /// Staff's answer to a suggestion and to every one merged into it; false for an unknown or merged suggestion.
    func answer(id: UUID, status: PurchaseSuggestion.Status, answer: String?, logger: Logger) async throws -> Bool {
        let rows = try await client.query(
            """
            UPDATE purchase_suggestions SET status = \(status.rawValue), answer = \(answer), answered_at = now()
            WHERE (id = \(id) AND merged_into IS NULL) OR merged_into = (SELECT id FROM purchase_suggestions WHERE id = \(id) AND merged_into IS NULL)
            RETURNING id
            """,
            logger: logger
        )
        return try await rows.collect().isEmpty == false
    }

    /// Suggestion `id` (and those merged into it) joins `into`, taking its status and answer; false unless both are
    /// suggestions no other joined, and not the same.
    func merge(id: UUID, into: UUID, logger: Logger) async throws -> Bool {
        guard id != into else { return false }
        return try await client.transaction(logger: logger) { connection in
            let roots = try await connection.query(
                "SELECT id FROM purchase_suggestions WHERE id IN (\(id), \(into)) AND merged_into IS NULL FOR UPDATE",
                logger: logger
            ).collect()
            guard roots.count == 2 else { return false }
            try await connection.query(
                """
                UPDATE purchase_suggestions s SET merged_into = \(into), status = t.status, answer = t.answer, book_id = t.book_id
                FROM purchase_suggestions t WHERE t.id = \(into) AND (s.id = \(id) OR s.merged_into = \(id))
                """,
                logger: logger
            )
            return true
        }
    }

    /// Books arrived (their licences, `(book, title)`): every waiting suggestion of one of their titles, and those
    /// merged into it, is answered `arrived` with the book, and each asker gets a `suggestion_arrived` notification
    /// (mail and live event) in the same transaction. Returns how many suggestions it answered.
    @discardableResult
    func arrived(_ books: [(id: UUID, title: String)], logger: Logger) async throws -> Int {
        let keyed = books.map { ($0.id, PurchaseSuggestion.titleKey($0.title)) }.filter { !$0.1.isEmpty }
        guard !keyed.isEmpty else { return 0 }
        return try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                WITH arriving AS (SELECT * FROM unnest(\(keyed.map(\.0))::uuid[], \(keyed.map(\.1))::text[]) AS a (book_id, title_key)),
                matched AS (
                    SELECT DISTINCT ON (s.id) s.id, a.book_id FROM purchase_suggestions s JOIN arriving a ON a.title_key = s.title_key
                    WHERE s.status IN ('open', 'ordered') AND s.merged_into IS NULL
                )
                UPDATE purchase_suggestions s SET status = 'arrived', book_id = m.book_id, answered_at = now()
                FROM matched m WHERE s.status IN ('open', 'ordered') AND (s.id = m.id OR s.merged_into = m.id)
                RETURNING s.id, s.patron_id, m.book_id
                """,
                logger: logger
            )
            // Read whole before the notifications are written on the same connection.
            var matched: [(id: UUID, patron: UUID?, book: UUID)] = []
            for try await row in rows.decode((UUID, UUID?, UUID).self) { matched.append(row) }
            for (id, patron, book) in matched {
                guard let patron else { continue }
                try await NotificationPostgresRepository.record(
                    .suggestionArrived,
                    patronID: patron,
                    bookID: book,
                    reference: id.lowercased,
                    on: connection,
                    logger: logger
                )
            }
            return matched.count
        }
    }
}
