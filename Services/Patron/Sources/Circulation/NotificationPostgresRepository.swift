import Foundation
import Logging
import PostgresNIO
import Shared

/// Stored notifications. `reference` makes each one unique (the deadline it is about), so that several
/// replicas of the expiry job record it once.
struct NotificationPostgresRepository: Sendable {
    let client: PostgresClient

    static func record(
        _ kind: NotificationKind,
        patronID: UUID,
        bookID: UUID,
        reference: String,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let key = "\(kind.rawValue):\(patronID.lowercased):\(bookID.lowercased):\(reference)"
        let inserted = try await connection.query(
            """
            INSERT INTO notifications (id, patron_id, book_id, kind, dedupe_key) VALUES (\(UUID()), \(patronID), \(bookID), \(kind.rawValue), \(key))
            ON CONFLICT (dedupe_key) DO NOTHING RETURNING 1
            """,
            logger: logger
        )
        // Mail goes with a notification recorded now, never with one recorded before (reminders are recorded again on
        // every pass of the expiry job: a kind turned on later must not mail the old ones).
        var isNew = false
        for try await _ in inserted { isNew = true }
        if isNew, MailTemplates.optional.contains(kind.rawValue) {
            try await MailPostgresRepository.queue(kind: kind.rawValue, patronID: patronID, bookID: bookID, key: key, on: connection, logger: logger)
        }
    }

    func list(patronID: UUID, logger: Logger) async throws -> [PatronNotification] {
        let rows = try await client.query(
            """
            SELECT n.id, n.book_id, n.kind, l.title, n.created_at, n.read_at FROM notifications n
            LEFT JOIN licenses l ON l.book_id = n.book_id
            WHERE n.patron_id = \(patronID) ORDER BY n.created_at DESC, n.id LIMIT 200
            """,
            logger: logger
        )
        var result: [PatronNotification] = []
        for try await (id, book, kind, title, created, read) in rows.decode((UUID, UUID, String, String?, Date, Date?).self) {
            guard let kind = NotificationKind(rawValue: kind) else { continue }
            result.append(PatronNotification(id: id, bookId: book, kind: kind, title: title, createdAt: created, readAt: read))
        }
        return result
    }

    /// Marks one of the patron's notifications read; false when the patron has no such notification.
    func markRead(id: UUID, patronID: UUID, logger: Logger) async throws -> Bool {
        let rows = try await client.query(
            "UPDATE notifications SET read_at = coalesce(read_at, now()) WHERE id = \(id) AND patron_id = \(patronID) RETURNING id",
            logger: logger
        )
        for try await _ in rows { return true }
        return false
    }
}
