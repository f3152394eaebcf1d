import PostgresSupport

extension CatalogMigration {
    // A word in more books than a search counts is answered from its most borrowed matches, which the GIN index cannot
    // give in that order: reading the popularity index and checking each book's vector took 80,000 rows (~105 ms) for
    // a word in 2.6 % of a million books. Each word of a book's title, subtitle, authors, series and subjects (the
    // vector's weights A to C) is kept here with the book's popularity, in that order, and the word's rank in the book
    // (what `ts_rank_cd` gives a search for that word alone): the most borrowed books with the word in those fields,
    // and how well each matches it, are the first entries of its range in the index (~9 a book; the description's
    // words are not kept). The trigger keeps the rows with the book: its words, popularity and withdrawal.
    static let booksByWordInPopularityOrder = Migration(
        version: 18,
        name: "Books by word in popularity order",
        sql: """
            CREATE TABLE search_postings (word text NOT NULL, popularity integer NOT NULL, book_id uuid NOT NULL, rank real NOT NULL);
            ALTER TABLE search_postings ADD PRIMARY KEY (word, popularity, book_id) INCLUDE (rank);
            """
    )
}
