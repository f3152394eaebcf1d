import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import Shared

/// What a feed shows of a patron (book states, hold positions, ignored books, unread notices), read consistently and
/// numbered for catalog's copy; and the queue of patrons whose shelf changed since catalog last got it.
struct ShelfPostgresRepository: Sendable {
    let client: PostgresClient
    let circulation: CirculationPostgresRepository

    /// The advisory-lock space of shelf readings ("shlf"): one reading of a patron's shelf at a time, so that a
    /// higher version is always a later reading.
    static let lockSpace: Int32 = 0x7368_6C66

    /// A numbered reading of the shelf, and the last change it covers.
    struct Reading: Sendable {
        var copy: ShelfCopy
        var coversChangesUpTo: Int64
    }

    private func shelf(patronID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> PatronShelf {
        let rows = try await circulation.shelfRows(patronID: patronID, bookID: nil, on: connection, logger: logger)
        var ignored: [UUID] = []
        var waiting = 0
        for try await (ids, unread) in try await connection.run(IgnoredAndUnread.self, patronID, logger: logger).decode(([UUID], Int).self) {
            (ignored, waiting) = (ids, unread)
        }
        let books = rows.map {
            PatronBookView(
                bookId: $0.bookID,
                state: $0.state,
                holdPosition: $0.holdPosition,
                dueAt: $0.dueAt,
                offerExpiresAt: $0.offerExpiresAt,
                suspendedUntil: $0.suspendedUntil
            )
        }
        return PatronShelf(books: books, ignored: ignored, waitingForAction: waiting)
    }

    /// Reads and numbers the shelf under the patron's lock (so a higher number is a later reading), after a share lock
    /// on the patron's row: a circulation change holding that row draws its stamp in its own transaction (`InsertRow`),
    /// so a reading must wait for it to commit before drawing a number above the stamp. Waits for the lock when
    /// `wait` (catalog asking for it, `GET /internal/patrons/{id}/shelf`), else nil if another reading is under way (a
    /// replica's background pass leaves that patron to whoever holds it).
    func read(patronID: UUID, wait: Bool, logger: Logger) async throws -> Reading? {
        try await client.transaction(logger: logger) { connection -> Reading? in
            let key = patronID.lowercased
            if wait {
                for try await _ in try await connection.run(LockShelf.self, Self.lockSpace, key, patronID, logger: logger) {}
            } else {
                var acquired = false
                for try await value in try await connection.run(TryLockShelf.self, Self.lockSpace, key, patronID, logger: logger)
                    .decode((Bool, Int?).self)
                { acquired = value.0 }
                guard acquired else { return nil }
            }
            // The number is drawn before the shelf is read: a reading numbered above a stamp (`stamp`) began after
            // the stamped change had committed, so it shows that change.
            var (version, upTo): (Int64, Int64) = (1, 0)
            for try await value in try await connection.run(NextVersion.self, patronID, logger: logger).decode((Int64, Int64).self) {
                (version, upTo) = value
            }
            let shelf = try await shelf(patronID: patronID, on: connection, logger: logger)
            return Reading(copy: ShelfCopy(version: version, shelf: shelf), coversChangesUpTo: upTo)
        }
    }

    /// Forgets the changes a delivered reading covered. Not flushed to disk before answering: if a crash loses the
    /// deletion, the shelf is only published once more.
    func delivered(_ reading: Reading, patronID: UUID, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            try await connection.query("SET LOCAL synchronous_commit = off", logger: logger)
            for try await _ in try await connection.run(ForgetChanges.self, patronID, reading.coversChangesUpTo, logger: logger) {}
        }
    }

    /// After a change of the patron's shelf has committed: a number that every later reading of the shelf exceeds,
    /// for catalog to ask for a reading at least that new (read-your-writes) without this request publishing it.
    /// Nil when catalog's copy is not behind.
    func stamp(patronID: UUID, logger: Logger) async throws -> Int64? {
        for try await row in try await client.run(Stamp.self, patronID, logger: logger) { return try row.decode(Int64.self) }
        return nil
    }

    // Prepared (`PreparedSQL`): a patron's change is published before it is answered, so each of its borrows and
    // returns runs these once. $1 the lock space, $2 the patron's id as text, $3 the patron.
    enum LockShelf: PreparedSQL {
        static let sql = "SELECT pg_advisory_xact_lock($1::int4, hashtext($2::text)), (SELECT 1 FROM patrons WHERE id = $3::uuid FOR SHARE)"
    }

    enum TryLockShelf: PreparedSQL {
        static let sql = "SELECT pg_try_advisory_xact_lock($1::int4, hashtext($2::text)), (SELECT 1 FROM patrons WHERE id = $3::uuid FOR SHARE)"
    }

    /// $1 patron: the reading's number and the last change it covers.
    enum NextVersion: PreparedSQL {
        static let sql = "SELECT nextval('shelf_version_seq'), coalesce((SELECT max(id) FROM shelf_changes WHERE patron_id = $1::uuid), 0::int8)"
    }

    /// $1 patron: the books they hid and how many notices they have not read.
    enum IgnoredAndUnread: PreparedSQL {
        static let sql = """
            SELECT ARRAY(SELECT book_id FROM ignored_books WHERE patron_id = $1::uuid),
                (SELECT count(*)::int FROM notifications WHERE patron_id = $1::uuid AND read_at IS NULL)
            """
    }

    /// $1 patron, $2 the last change a delivered reading covered.
    enum ForgetChanges: PreparedSQL {
        static let sql = "DELETE FROM shelf_changes WHERE patron_id = $1::uuid AND id <= $2::int8"
    }

    /// $1 patron; prepared (`PreparedSQL`): every change a patron makes runs it.
    enum Stamp: PreparedSQL {
        static let sql = "SELECT nextval('shelf_version_seq') FROM (SELECT 1 FROM shelf_changes WHERE patron_id = $1::uuid LIMIT 1) pending"
    }

    /// Some patrons whose shelf changed since catalog last got it, oldest change first.
    func changedPatrons(limit: Int, logger: Logger) async throws -> [UUID] {
        var result: [UUID] = []
        for try await id in try await client.query(
            "SELECT patron_id FROM shelf_changes GROUP BY patron_id ORDER BY min(id) LIMIT \(limit)",
            logger: logger
        ).decode(UUID.self) { result.append(id) }
        return result
    }
}
