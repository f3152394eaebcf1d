import PostgresSupport

extension CatalogMigration {
    // A search with few matches was followed by the titles that looked like the whole query (trigram similarity over
    // every title): for a short word the trigram index yielded ~65,000 candidate titles at a million books (0.3-0.9 s).
    // A typo is in a word, so words are corrected instead: the catalogue's words (of titles, authors, series and
    // subjects) are kept once each in `search_words`, small beside `books`, with their own trigram index. Words are
    // only added (a word whose books went finds nothing and costs nothing); a book's words are inserted in order, so
    // two ingests sharing words wait for each other rather than deadlock. The title trigram index is no longer read.
    static let catalogueWordsForTypoCorrection = Migration(
        version: 16,
        name: "Catalogue words for typo correction",
        sql: """
            CREATE TABLE search_words (word text PRIMARY KEY);
            CREATE INDEX search_words_trigrams ON search_words USING gin (word gin_trgm_ops);
            DROP INDEX IF EXISTS books_title_trgm;
            """
    )
}
