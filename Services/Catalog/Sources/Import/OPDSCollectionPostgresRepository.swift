import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// OPDS collections to import (migration 36): registered by staff, their runs claimed by one replica at a time, their
/// progress, and which book each entry became.
struct OPDSCollectionPostgresRepository: Sendable {
    let client: PostgresClient

    /// A run still marked running without a heartbeat this long belongs to a replica that is gone: it may be taken up.
    static let abandonedAfter: TimeInterval = 120

    struct Collection: Encodable, Sendable {
        let id: UUID
        let name: String
        let url: String
        let username: String?
        let hasPassword: Bool
        let status: String
        let requestedAt: Date?
        let startedAt: Date?
        let finishedAt: Date?
        let pagesRead: Int
        let entriesSeen: Int
        let booksAdded: Int
        let booksWithdrawn: Int
        let errors: [String]
    }

    /// What a run needs: where the feed is and how to sign in to it.
    struct Claimed: Sendable {
        let id: UUID
        let url: String
        let username: String?
        let password: String?
    }

    private static let columns = """
        id, name, url, username, password IS NOT NULL, run_status, run_requested_at, run_started_at, run_finished_at,
        pages_read, entries_seen, books_added, books_withdrawn, errors
        """
    private typealias Row = (UUID, String, String, String?, Bool, String, Date?, Date?, Date?, Int, Int, Int, Int, [String])

    private static func collection(_ r: Row) -> Collection {
        Collection(
            id: r.0,
            name: r.1,
            url: r.2,
            username: r.3,
            hasPassword: r.4,
            status: r.5,
            requestedAt: r.6,
            startedAt: r.7,
            finishedAt: r.8,
            pagesRead: r.9,
            entriesSeen: r.10,
            booksAdded: r.11,
            booksWithdrawn: r.12,
            errors: r.13
        )
    }

    func create(name: String, url: String, username: String?, password: String?, logger: Logger) async throws -> UUID {
        let id = UUID()
        try await client.query(
            "INSERT INTO opds_collections (id, name, url, username, password) VALUES (\(id), \(name), \(url), \(username), \(password))",
            logger: logger
        )
        return id
    }

    func all(logger: Logger) async throws -> [Collection] {
        let rows = try await client.query("SELECT \(unescaped: Self.columns) FROM opds_collections ORDER BY created_at, id", logger: logger)
        var found: [Collection] = []
        for try await row in rows.decode(Row.self) { found.append(Self.collection(row)) }
        return found
    }

    func find(_ id: UUID, logger: Logger) async throws -> Collection? {
        let rows = try await client.query("SELECT \(unescaped: Self.columns) FROM opds_collections WHERE id = \(id)", logger: logger)
        for try await row in rows.decode(Row.self) { return Self.collection(row) }
        return nil
    }

    /// Asks for a run (a run waiting or under way is left as it is); false when there is no such collection.
    func requestRun(_ id: UUID, logger: Logger) async throws -> Bool {
        let rows = try await client.query(
            """
            UPDATE opds_collections SET run_status = CASE WHEN run_status IN ('waiting', 'running') THEN run_status ELSE 'waiting' END,
                run_requested_at = CASE WHEN run_status IN ('waiting', 'running') THEN run_requested_at ELSE now() END
            WHERE id = \(id) RETURNING id
            """,
            logger: logger
        )
        for try await _ in rows { return true }
        return false
    }

    /// Takes the oldest waiting run (or one whose replica stopped beating), for this replica alone.
    func claim(logger: Logger) async throws -> Claimed? {
        let rows = try await client.query(
            """
            UPDATE opds_collections SET run_status = 'running', run_started_at = now(), run_heartbeat_at = now(), run_finished_at = NULL,
                pages_read = 0, entries_seen = 0, books_added = 0, books_withdrawn = 0, errors = '{}'
            WHERE id = (SELECT id FROM opds_collections
                WHERE run_status = 'waiting'
                   OR (run_status = 'running' AND run_heartbeat_at < now() - make_interval(secs => \(Self.abandonedAfter)))
                ORDER BY run_requested_at FOR UPDATE SKIP LOCKED LIMIT 1)
            RETURNING id, url, username, password
            """,
            logger: logger
        )
        for try await (id, url, username, password) in rows.decode((UUID, String, String?, String?).self) {
            return Claimed(id: id, url: url, username: username, password: password)
        }
        return nil
    }

    /// The run's figures so far (also its heartbeat).
    func progress(_ id: UUID, pages: Int, seen: Int, added: Int, errors: [String], logger: Logger) async throws {
        try await client.query(
            """
            UPDATE opds_collections SET pages_read = \(pages), entries_seen = \(seen), books_added = \(added), errors = \(errors),
                run_heartbeat_at = now()
            WHERE id = \(id)
            """,
            logger: logger
        )
    }

    func finish(_ id: UUID, failed: Bool, withdrawn: Int, errors: [String], logger: Logger) async throws {
        try await client.query(
            """
            UPDATE opds_collections SET run_status = \(failed ? "failed" : "done"), run_finished_at = now(), books_withdrawn = \(withdrawn),
                errors = \(errors)
            WHERE id = \(id)
            """,
            logger: logger
        )
    }

    /// The entries of the collection already imported, with their books.
    func imported(_ id: UUID, logger: Logger) async throws -> [String: UUID] {
        let rows = try await client.query("SELECT entry_id, book_id FROM opds_collection_books WHERE collection_id = \(id)", logger: logger)
        var found: [String: UUID] = [:]
        for try await (entry, book) in rows.decode((String, UUID).self) { found[entry] = book }
        return found
    }

    func link(collection id: UUID, entry: String, book: UUID, logger: Logger) async throws {
        try await client.query(
            """
            INSERT INTO opds_collection_books (collection_id, entry_id, book_id) VALUES (\(id), \(entry), \(book))
            ON CONFLICT (collection_id, entry_id) DO UPDATE SET book_id = EXCLUDED.book_id
            """,
            logger: logger
        )
    }

    /// Forgets an entry gone from the feed; returns whether its book is now in no collection's feed.
    func unlink(collection id: UUID, entry: String, logger: Logger) async throws -> UUID? {
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                "DELETE FROM opds_collection_books WHERE collection_id = \(id) AND entry_id = \(entry) RETURNING book_id",
                logger: logger
            )
            var book: UUID?
            for try await found in rows.decode(UUID.self) { book = found }
            guard let book else { return nil }
            let others = try await connection.query("SELECT 1 FROM opds_collection_books WHERE book_id = \(book) LIMIT 1", logger: logger)
            for try await _ in others { return nil }
            return book
        }
    }
}
