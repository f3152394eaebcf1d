import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// The patrons' live events (migration 16): numbered once visible, read after a number, kept a day for streams that
/// resume.
struct PatronEventPostgresRepository: Sendable {
    let client: PostgresClient

    /// The channel a numbering pass names each patron on whose events it numbered.
    static let channel = "patron_events"
    /// The advisory lock that lets one numbering pass run at a time across replicas ("pevt").
    static let numberingLock: Int64 = 0x7065_7674
    /// How long an event is kept for a stream that resumes after it.
    static let kept = "1 day"

    /// Numbers the events committed since the last pass and tells listeners which patrons have news. Passes run one
    /// at a time (the advisory lock, held to the commit), so that every number handed out is visible before a larger
    /// one: a reader that saw number n never sees a smaller one appear later. Returns how many it numbered.
    @discardableResult
    /// Rows another transaction holds are skipped (only an account's deletion does, and they go with it): waiting for
    /// them deadlocked with that deletion, which waited for rows this pass had locked (a full run's 500 on `DELETE /me`).
    func number(limit: Int = 5_000, logger: Logger) async throws -> Int {
        try await client.transaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.numberingLock))", logger: logger)
            let rows = try await connection.query(
                """
                UPDATE patron_events SET seq = nextval('patron_event_seq')
                WHERE id IN (SELECT id FROM patron_events WHERE seq IS NULL ORDER BY id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                RETURNING patron_id
                """,
                logger: logger
            )
            var patrons = Set<String>()
            var count = 0
            for try await patronID in rows.decode(UUID.self) {
                patrons.insert(patronID.uuidString.lowercased())
                count += 1
            }
            if !patrons.isEmpty {
                try await connection.query(
                    "SELECT pg_notify(\(Self.channel), patron) FROM unnest(\(Array(patrons))::text[]) AS patron",
                    logger: logger
                )
            }
            return count
        }
    }

    /// The patron's events numbered after `seq`, oldest first, with the book's title.
    func events(patronID: UUID, after seq: Int64, limit: Int = 200, logger: Logger) async throws -> [PatronEvent] {
        let rows = try await client.query(
            """
            SELECT e.seq, e.kind, e.book_id, l.title, e.created_at FROM patron_events e
            LEFT JOIN licenses l ON l.book_id = e.book_id
            WHERE e.patron_id = \(patronID) AND e.seq IS NOT NULL AND e.seq > \(seq) ORDER BY e.seq LIMIT \(limit)
            """,
            logger: logger
        )
        var events: [PatronEvent] = []
        for try await (seq, kind, book, title, at) in rows.decode((Int64, String, UUID?, String?, Date).self) {
            events.append(PatronEvent(seq: seq, kind: kind, bookId: book, title: title, at: at))
        }
        return events
    }

    /// The number of the patron's newest event, 0 when none is kept: where a new stream starts.
    func newest(patronID: UUID, logger: Logger) async throws -> Int64 {
        let rows = try await client.query(
            "SELECT coalesce(max(seq), 0) FROM patron_events WHERE patron_id = \(patronID) AND seq IS NOT NULL",
            logger: logger
        )
        for try await seq in rows.decode(Int64.self) { return seq }
        return 0
    }

    /// Forgets numbered events older than `kept`. Returns how many.
    @discardableResult
    func prune(logger: Logger) async throws -> Int {
        let rows = try await client.query(
            """
            DELETE FROM patron_events WHERE seq IS NOT NULL AND created_at < now() - \(Self.kept)::interval RETURNING 1
            """,
            logger: logger
        )
        var count = 0
        for try await _ in rows { count += 1 }
        return count
    }

    /// Forgets a deleted account's events, in the deletion's transaction (after its loans ended, which recorded some).
    static func forget(patronID: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM patron_events WHERE patron_id = \(patronID)", logger: logger)
    }
}
