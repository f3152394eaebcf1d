import Foundation
import Logging
import PostgresNIO

extension CirculationPostgresRepository {
    /// A deadline that has passed: an offer to expire or a loan to end.
    struct DueExpiry: Sendable {
        enum Kind: String { case offer, loan }
        var patronID: UUID
        var bookID: UUID
        var kind: Kind
    }

    /// Up to 500 offers and 500 loans whose deadline is at or before `now`, oldest first.
    func dueExpiries(now: Date, logger: Logger) async throws -> [DueExpiry] {
        let rows = try await client.query(
            """
            (SELECT patron_id, book_id, 'offer' FROM patron_books WHERE state = 'loan_offered' AND offer_expires_at <= \(now)
                ORDER BY offer_expires_at LIMIT 500)
            UNION ALL
            (SELECT patron_id, book_id, 'loan' FROM patron_books
                WHERE state = ANY(\(Self.loanStates)) AND due_at <= \(now)
                ORDER BY due_at LIMIT 500)
            """,
            logger: logger
        )
        var due: [DueExpiry] = []
        for try await (patronID, bookID, kind) in rows.decode((UUID, UUID, String).self) {
            guard let kind = DueExpiry.Kind(rawValue: kind) else { continue }
            due.append(DueExpiry(patronID: patronID, bookID: bookID, kind: kind))
        }
        return due
    }

    /// Records one reminder per deadline: offers expiring within a day, loans due within `loanReminderBefore`
    /// (`LOAN_REMINDER_BEFORE`, three days).
    func recordReminders(now: Date, loanReminderBefore: TimeInterval = 3 * 86_400, logger: Logger) async throws {
        try await client.withConnection { connection in
            let rows = try await connection.query(
                """
                SELECT patron_id, book_id, 'offer_expiring', offer_expires_at FROM patron_books
                    WHERE state = 'loan_offered' AND offer_expires_at > \(now) AND offer_expires_at <= \(now) + interval '1 day'
                UNION ALL
                SELECT patron_id, book_id, 'loan_due_soon', due_at FROM patron_books
                    WHERE state = ANY(\(Self.loanStates)) AND due_at > \(now) AND due_at <= \(now) + make_interval(secs => \(loanReminderBefore))
                """,
                logger: logger
            )
            var reminders: [(UUID, UUID, NotificationKind, Date)] = []
            for try await (patronID, bookID, kind, deadline) in rows.decode((UUID, UUID, String, Date).self) {
                guard let kind = NotificationKind(rawValue: kind) else { continue }
                reminders.append((patronID, bookID, kind, deadline))
            }
            for (patronID, bookID, kind, deadline) in reminders {
                try await NotificationPostgresRepository.record(
                    kind,
                    patronID: patronID,
                    bookID: bookID,
                    reference: "\(deadline.timeIntervalSince1970)",
                    on: connection,
                    logger: logger
                )
            }
        }
    }
}
