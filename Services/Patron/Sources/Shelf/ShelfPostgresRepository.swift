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

    /// The patron's shelf now, for `GET /internal/patrons/{id}/shelf`.
    func shelf(patronID: UUID, logger: Logger) async throws -> PatronShelf {
        try await client.withConnection { try await shelf(patronID: patronID, on: $0, logger: logger) }
    }

    private func shelf(patronID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> PatronShelf {
        let rows = try await circulation.shelfRows(patronID: patronID, bookID: nil, on: connection, logger: logger)
        var ignored: [UUID] = []
        for try await id in try await connection.query("SELECT book_id FROM ignored_books WHERE patron_id = \(patronID)", logger: logger).decode(UUID.self) {
            ignored.append(id)
        }
        let waiting = try await Notifications.unreadCount(patronID: patronID, on: connection, logger: logger)
        let books = rows.map {
            PatronBookView(bookId: $0.bookID, state: $0.state, holdPosition: $0.holdPosition, dueAt: $0.dueAt, offerExpiresAt: $0.offerExpiresAt)
        }
        return PatronShelf(books: books, ignored: ignored, waitingForAction: waiting)
    }

    /// Reads and numbers the shelf under the patron's lock (so a higher number is a later reading): waiting for it when `wait`, else nil if another reading
    /// is under way (a replica's background pass leaves that patron to whoever holds it).
    func read(patronID: UUID, wait: Bool, logger: Logger) async throws -> Reading? {
        try await client.transaction(logger: logger) { connection -> Reading? in
            let key = patronID.uuidString.lowercased()
            if wait {
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.lockSpace), hashtext(\(key)))", logger: logger)
            } else {
                var acquired = false
                for try await value in try await connection.query(
                    "SELECT pg_try_advisory_xact_lock(\(Self.lockSpace), hashtext(\(key)))", logger: logger
                ).decode(Bool.self) { acquired = value }
                guard acquired else { return nil }
            }
            var upTo: Int64 = 0
            for try await value in try await connection.query(
                "SELECT coalesce(max(id), 0) FROM shelf_changes WHERE patron_id = \(patronID)", logger: logger
            ).decode(Int64.self) { upTo = value }
            let shelf = try await shelf(patronID: patronID, on: connection, logger: logger)
            var version: Int64 = 1
            for try await value in try await connection.query("SELECT nextval('shelf_version_seq')", logger: logger).decode(Int64.self) {
                version = value
            }
            return Reading(copy: ShelfCopy(version: version, shelf: shelf), coversChangesUpTo: upTo)
        }
    }

    /// Forgets the changes a delivered reading covered. Not flushed to disk before answering: if a crash loses the
    /// deletion, the shelf is only published once more.
    func delivered(_ reading: Reading, patronID: UUID, logger: Logger) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SET LOCAL synchronous_commit = off", logger: logger)
            try await connection.query(
                "DELETE FROM shelf_changes WHERE patron_id = \(patronID) AND id <= \(reading.coversChangesUpTo)", logger: logger)
        }
    }

    /// Whether catalog's copy of the patron's shelf is behind.
    func hasChanges(patronID: UUID, logger: Logger) async throws -> Bool {
        for try await _ in try await client.query("SELECT 1 FROM shelf_changes WHERE patron_id = \(patronID) LIMIT 1", logger: logger) { return true }
        return false
    }

    /// Some patrons whose shelf changed since catalog last got it, oldest change first.
    func changedPatrons(limit: Int, logger: Logger) async throws -> [UUID] {
        var result: [UUID] = []
        for try await id in try await client.query(
            "SELECT patron_id FROM shelf_changes GROUP BY patron_id ORDER BY min(id) LIMIT \(limit)", logger: logger
        ).decode(UUID.self) { result.append(id) }
        return result
    }
}
