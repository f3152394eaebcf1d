import PostgresSupport

extension CatalogMigration {
    static let indexesForEveryLaneSort = Migration(
        version: 2,
        name: "indexes for every lane sort",
        sql: """
            CREATE INDEX books_checkouts ON books (checkouts, id);
            CREATE INDEX books_rating ON books ((coalesce(rating_average, 0)), id);
            CREATE INDEX books_sort_author ON books ((lower(sort_author)), id);
            CREATE INDEX books_word_count ON books (word_count, id);
            CREATE INDEX books_featured ON books (added_at, id) WHERE featured;
            CREATE INDEX books_staff_picks ON books (added_at, id) WHERE staff_pick;
            """
    )
}
