import PostgresSupport

extension PatronMigration {
    // Ended loans older than `CIRCULATION_HISTORY_DAYS` lose their patron (as circulation events do): the loan stays
    // counted in figures and reports, no longer linked to anyone.
    static let loanHistoryMayLoseItsPatron = Migration(
        version: 20,
        name: "loan history may lose its patron",
        sql: """
            ALTER TABLE loan_history ALTER COLUMN patron_id DROP NOT NULL;
            CREATE INDEX circulation_events_with_patron_by_time ON circulation_events (at) WHERE patron_id IS NOT NULL;
            CREATE INDEX loan_history_with_patron_by_end ON loan_history (ended_at) WHERE patron_id IS NOT NULL AND ended_at IS NOT NULL;
            """
    )
}
