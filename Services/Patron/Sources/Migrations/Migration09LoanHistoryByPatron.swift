import PostgresSupport

extension PatronMigration {
    // The export pages a patron's loan history and the reading rules ask whether a patron ever borrowed a book.
    static let loanHistoryByPatron = Migration(
        version: 9,
        name: "loan history by patron",
        sql: """
            CREATE INDEX loan_history_patron ON loan_history (patron_id, id);
            """
    )
}
