import PostgresSupport

extension PatronMigration {
    // A change marks its book's figures as due (`figures_due`) instead of working them out and queueing them in its
    // own transaction (a statement of every borrow and return: a fifth of their throughput); the outbox's pass works
    // them out for many books at once (`FiguresPostgresRepository.queueDue`). Each mark is drawn after the mark's row
    // is locked, so a book's marks grow in the order its changes commit, and the figures go out with their mark as
    // version: above every version the licences' counter gave (figures it queued still go out, and lose to newer ones).
    static let figuresWorkedOutAfterTheChange = Migration(
        version: 12,
        name: "figures worked out after the change",
        sql: """
            CREATE TABLE figures_due (book_id uuid PRIMARY KEY, mark bigint NOT NULL);
            CREATE SEQUENCE figures_mark_seq;
            SELECT setval('figures_mark_seq', (SELECT coalesce(max(figures_version), 0) + 1 FROM licenses));
            ALTER TABLE licenses DROP COLUMN figures_version;
            """
    )
}
