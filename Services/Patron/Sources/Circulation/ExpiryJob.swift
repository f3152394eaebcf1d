import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceLifecycle
import ServiceSupport
import Shared

/// Expires loans and loan offers whose time has passed, ends hold suspensions whose date has come, and records
/// reminders, every `interval`; forgets sign-in failures that no limit looks at any more.
///
/// Safe with several replicas: each expiry re-checks its row under the licence lock (`expireOffer`, `expireLoan`), so a
/// row that another replica expired first is skipped, and reminders are de-duplicated by a unique key.
struct ExpiryJob: Service {
    let client: PostgresClient
    let circulation: CirculationPostgresRepository
    let throttle: SignInThrottle
    let interval: TimeInterval
    let schema: SchemaReadiness
    let logger: Logger

    func run() async throws {
        try await PeriodicJob.run(every: interval, after: schema, logger: logger, failure: "Expiry run failed") {
            try await runOnce()
            try await throttle.sweep(logger: logger)
            try await AccountPostgresRepository(client: client).sweepSignups(logger: logger)
        }
    }

    /// One pass: expires what is due now, wakes suspended holds and records reminders. Returns how many changes it applied.
    @discardableResult
    func runOnce(now: Date = Date()) async throws -> Int {
        var applied = 0
        let due = try await client.query(
            """
            (SELECT patron_id, book_id, 'offer' FROM patron_books WHERE state = 'loan_offered' AND offer_expires_at <= \(now)
                ORDER BY offer_expires_at LIMIT 500)
            UNION ALL
            (SELECT patron_id, book_id, 'loan' FROM patron_books
                WHERE state IN ('not_downloaded', 'download_queued', 'downloading', 'download_failed', 'download_completed', 'opened')
                AND due_at <= \(now)
                ORDER BY due_at LIMIT 500)
            """, logger: logger)
        var candidates: [(UUID, UUID, String)] = []
        for try await row in due.decode((UUID, UUID, String).self) { candidates.append(row) }
        for (patronID, bookID, kind) in candidates {
            let outcome =
                kind == "offer"
                ? try await circulation.expireOffer(patronID: patronID, bookID: bookID, dueBy: now, logger: logger)
                : try await circulation.expireLoan(patronID: patronID, bookID: bookID, dueBy: now, logger: logger)
            if outcome != nil { applied += 1 }
        }
        applied += try await circulation.endSuspensions(dueBy: now, logger: logger)
        try await remind(now: now)
        return applied
    }

    /// Offers expiring within a day and loans due within three days get one reminder per deadline.
    private func remind(now: Date) async throws {
        try await client.withConnection { connection in
            let rows = try await connection.query(
                """
                SELECT patron_id, book_id, 'offer_expiring', offer_expires_at FROM patron_books
                    WHERE state = 'loan_offered' AND offer_expires_at > \(now) AND offer_expires_at <= \(now) + interval '1 day'
                UNION ALL
                SELECT patron_id, book_id, 'loan_due_soon', due_at FROM patron_books
                    WHERE state IN ('not_downloaded', 'download_queued', 'downloading', 'download_failed', 'download_completed', 'opened')
                    AND due_at > \(now) AND due_at <= \(now) + interval '3 days'
                """, logger: logger)
            var reminders: [(UUID, UUID, String, Date)] = []
            for try await row in rows.decode((UUID, UUID, String, Date).self) { reminders.append(row) }
            for (patronID, bookID, kind, deadline) in reminders {
                try await Notifications.record(
                    NotificationKind(rawValue: kind)!, patronID: patronID, bookID: bookID, reference: "\(deadline.timeIntervalSince1970)",
                    on: connection, logger: logger)
            }
        }
    }
}
