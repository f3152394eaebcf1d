import PostgresSupport

extension PatronMigration {
    static let coversOnMyBooks = Migration(
        version: 4,
        name: "covers on My books",
        sql: """
            ALTER TABLE licenses ADD COLUMN has_cover boolean;
            """
    )
}
