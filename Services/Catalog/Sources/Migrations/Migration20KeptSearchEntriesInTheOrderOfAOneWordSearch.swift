import PostgresSupport

extension CatalogMigration {
    // A one-word search whose word is in 1,000-10,000 books ranked every kept entry of the word for each page
    // (~8,600 entries: 5-8 ms at a million books, a quarter of the random words' searches). This index holds them in
    // the order of those pages: the search's key (rank + `FeedPostgresRepository.inFieldsBoost`, 100, as real: the
    // statement's expression must be this one), then id; a page is read from it in order.
    static let keptSearchEntriesInTheOrderOfAOneWordSearch = Migration(
        version: 20,
        name: "Kept search entries in the order of a one-word search",
        sql: """
            CREATE INDEX search_postings_by_key ON search_postings (word, ((rank + 100)::real) DESC, book_id);
            """
    )
}
