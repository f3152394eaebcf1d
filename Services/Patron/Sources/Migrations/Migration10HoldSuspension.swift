import PostgresSupport

extension PatronMigration {
    // A hold may be suspended until a date: it keeps its place, but no offer goes to it meanwhile (`promoteHolds`),
    // and the expiry job clears the date once it has passed (`endSuspensions`).
    static let holdSuspension = Migration(
        version: 10,
        name: "hold suspension",
        sql: """
            ALTER TABLE patron_books ADD COLUMN suspended_until timestamptz;
            CREATE INDEX patron_books_suspended ON patron_books (suspended_until) WHERE suspended_until IS NOT NULL;
            """
    )
}
