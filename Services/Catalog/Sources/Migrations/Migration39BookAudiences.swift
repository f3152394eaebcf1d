import PostgresSupport

extension CatalogMigration {
    // Who each book is for (children, young adults, adults, all ages; `BookAudience`), from its metadata or staff's
    // edit: teens' and children's cards see only the books that fit them (`AudienceLimit`). Null: not stated.
    static let bookAudiences = Migration(
        version: 39,
        name: "book audiences",
        sql: """
            ALTER TABLE books ADD COLUMN audience text CHECK (audience IN ('children', 'young-adult', 'adult', 'all-ages'));
            CREATE INDEX books_audience ON books (audience) WHERE audience IS NOT NULL;
            """
    )
}
