import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import ServiceSupport
import Shared

/// Expires loans and loan offers whose time has passed, ends hold suspensions whose date has come, and records
/// reminders, every `interval`; forgets sign-in failures that no limit looks at any more, and idempotency keys past
/// their day.
///
/// Safe with several replicas: each expiry re-checks its row under the licence lock (`expireOffer`, `expireLoan`), so a
/// row that another replica expired first is skipped, and reminders are de-duplicated by a unique key.
struct ExpiryJob: Service {
    let client: PostgresClient
    let circulation: CirculationPostgresRepository
    /// The book machine over the same store.
    let changes: Circulation
    let throttle: SignInThrottlePostgresRepository
    let interval: TimeInterval
    /// `CIRCULATION_HISTORY_DAYS`: how long who borrowed what is kept (circulation events and ended loans).
    var historyDays = 180
    /// How long before a loan ends its reminder is recorded (and mailed).
    var loanReminderBefore: TimeInterval = 3 * 86_400
    let schema: SchemaReadiness
    let logger: Logger

    func run() async throws {
        try await PeriodicJob.run(every: interval, after: schema, logger: logger, failure: "Expiry run failed") {
            try await runOnce()
            try await throttle.sweep(logger: logger)
            try await AccountPostgresRepository(client: client).sweepSignups(logger: logger)
            try await IdempotencyPostgresRepository(client: client).sweep(logger: logger)
            try await CirculationReportPostgresRepository(client: client).anonymise(olderThan: historyDays, logger: logger)
        }
    }

    /// One pass: expires what is due now, wakes suspended holds and records reminders. Returns how many changes it applied.
    @discardableResult
    func runOnce(now: Date = Date()) async throws -> Int {
        var applied = 0
        for due in try await circulation.dueExpiries(now: now, logger: logger) {
            let outcome =
                switch due.kind {
                case .offer: try await changes.expireOffer(patronID: due.patronID, bookID: due.bookID, dueBy: now, logger: logger)
                case .loan: try await changes.expireLoan(patronID: due.patronID, bookID: due.bookID, dueBy: now, logger: logger)
                }
            if outcome != nil { applied += 1 }
        }
        applied += try await circulation.endSuspensions(dueBy: now, logger: logger)
        try await circulation.recordReminders(now: now, loanReminderBefore: loanReminderBefore, logger: logger)
        return applied
    }
}
