import Foundation
import Logging
import PostgresNIO

/// What the operator console lists and counts: every book, withdrawn ones too, newest first.
extension BookPostgresRepository {
    /// Books whose title or an author contains `words` (all books when empty), newest first, `size` after the book
    /// `after` (the last of the previous page; its own row gives the keyset, so no time is rounded on the way).
    func adminList(words: String, after: UUID?, size: Int, logger: Logger) async throws -> [BookRecord] {
        let pattern =
            "%"
            + words.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
            + "%"
        return try await records(
            """
            SELECT \(unescaped: Self.recordColumns) FROM books
            WHERE (\(words) = '' OR title ILIKE \(pattern) OR array_to_string(authors, ' ') ILIKE \(pattern))
              AND (\(after)::uuid IS NULL OR (added_at, id) < (SELECT added_at, id FROM books WHERE id = \(after)))
            ORDER BY added_at DESC, id DESC LIMIT \(size)
            """,
            logger: logger
        )
    }

    struct CatalogFigures: Codable, Sendable {
        var books: Int
        var withdrawn: Int
        var openAccess: Int
        var copies: Int
        var copiesLent: Int
        var addedToday: Int
        var addedThisWeek: Int
    }

    /// The console's dashboard figures.
    func figures(logger: Logger) async throws -> CatalogFigures {
        try await read { client in
            let rows = try await client.query(
                """
                SELECT count(*) FILTER (WHERE withdrawn_at IS NULL)::int, count(*) FILTER (WHERE withdrawn_at IS NOT NULL)::int,
                    count(*) FILTER (WHERE withdrawn_at IS NULL AND open_access)::int,
                    coalesce(sum(copies) FILTER (WHERE withdrawn_at IS NULL AND NOT open_access), 0)::int,
                    coalesce(sum(copies - copies_available) FILTER (WHERE withdrawn_at IS NULL AND NOT open_access), 0)::int,
                    count(*) FILTER (WHERE added_at > now() - interval '1 day')::int, count(*) FILTER (WHERE added_at > now() - interval '7 days')::int
                FROM books
                """,
                logger: logger
            )
            for try await (books, withdrawn, open, copies, lent, today, week) in rows.decode((Int, Int, Int, Int, Int, Int, Int).self) {
                return CatalogFigures(
                    books: books,
                    withdrawn: withdrawn,
                    openAccess: open,
                    copies: copies,
                    copiesLent: lent,
                    addedToday: today,
                    addedThisWeek: week
                )
            }
            return CatalogFigures(books: 0, withdrawn: 0, openAccess: 0, copies: 0, copiesLent: 0, addedToday: 0, addedThisWeek: 0)
        }
    }
}
