import PostgresSupport

extension PatronMigration {
    // "Patrons who borrowed this also borrowed" starts from a book's borrowers.
    static let loanHistoryByBook = Migration(
        version: 11,
        name: "loan history by book",
        sql: """
            CREATE INDEX loan_history_book ON loan_history (book_id, patron_id);
            """
    )
}
