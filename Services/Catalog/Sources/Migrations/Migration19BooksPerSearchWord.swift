import PostgresSupport

extension CatalogMigration {
    // A one-word search with fewer matches than the count's bound ranked every match: ~3,000-10,000 books' vectors read
    // from the heap (20-50 ms at a million books), and the count alone read them when the word's kept entries did not
    // pass the bound. How many books (on the shelves) have each word, and how many in their title, subtitle, authors,
    // series or subjects, is kept here: one row read counts a word's matches, and when every match has the word in
    // those fields its kept entries (`search_postings`, with their rank) are the matches, read from their index alone.
    // The trigger updates a book's words in word order, so that concurrent ingests sharing words wait rather than
    // deadlock.
    static let booksPerSearchWord = Migration(
        version: 19,
        name: "Books per search word",
        sql: """
            CREATE TABLE search_word_counts (word text COLLATE "C" PRIMARY KEY, books integer NOT NULL, in_fields integer NOT NULL);
            """
    )
}
