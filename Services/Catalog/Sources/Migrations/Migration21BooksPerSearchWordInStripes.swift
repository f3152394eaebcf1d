import PostgresSupport

extension CatalogMigration {
    // Every ingest updated the counts of the words it shares with every other ("the", "and", ...), so concurrent
    // ingests waited on each other's rows until commit: at a million books, a seventh of ingest's time. Each
    // transaction now updates the rows of one of 64 stripes (by its transaction id), so concurrent ones seldom meet;
    // a word's counts are the sums of its stripes (`search_word_totals`), and one stripe may go below zero.
    static let booksPerSearchWordInStripes = Migration(
        version: 21,
        name: "Books per search word in stripes",
        sql: """
            ALTER TABLE search_word_counts ADD COLUMN stripe smallint NOT NULL DEFAULT 0;
            ALTER TABLE search_word_counts DROP CONSTRAINT search_word_counts_pkey, ADD PRIMARY KEY (word, stripe);
            CREATE VIEW search_word_totals AS
                SELECT word, sum(books)::int AS books, sum(in_fields)::int AS in_fields FROM search_word_counts GROUP BY word;
            """
    )
}
