import PostgresSupport

extension CatalogFunction {
    /// As migration 16 ("Catalogue words for typo correction") last wrote it; why it is so is said there.
    static let rememberBookWords = DatabaseFunction(
        name: "remember_book_words",
        sql: """
            CREATE OR REPLACE FUNCTION remember_book_words() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    INSERT INTO search_words (word)
                    SELECT word FROM book_words(NEW.title, NEW.subtitle, NEW.authors, NEW.series, NEW.subjects) word ORDER BY word
                    ON CONFLICT DO NOTHING;
                    RETURN NULL;
                END
                $$;
            CREATE OR REPLACE TRIGGER books_words AFTER INSERT OR UPDATE OF title, subtitle, authors, series, subjects ON books
                FOR EACH ROW EXECUTE FUNCTION remember_book_words();
            """
    )
}
