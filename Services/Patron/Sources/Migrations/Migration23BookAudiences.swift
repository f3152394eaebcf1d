import PostgresSupport

extension PatronMigration {
    // Who each book is for, with its licence (catalog's `BookAudience`): a teen's or a child's card borrows and holds
    // only the books it fits (`AudienceLimit`).
    static let bookAudiences = Migration(
        version: 23,
        name: "book audiences",
        sql: "ALTER TABLE licenses ADD COLUMN audience text;"
    )
}
