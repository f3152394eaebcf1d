import PostgresSupport

extension CatalogFunction {
    /// As migration 21 ("Books per search word in stripes") last wrote it; why it is so is said there.
    static let keepSearchWordCounts = DatabaseFunction(
        name: "keep_search_word_counts",
        sql: """
            CREATE OR REPLACE FUNCTION keep_search_word_counts() RETURNS trigger LANGUAGE plpgsql AS $$
                DECLARE
                    gone tsvector := '';
                    came tsvector := '';
                BEGIN
                    IF TG_OP <> 'INSERT' AND OLD.withdrawn_at IS NULL THEN gone := OLD.search; END IF;
                    IF TG_OP <> 'DELETE' AND NEW.withdrawn_at IS NULL THEN came := NEW.search; END IF;
                    IF gone = came THEN RETURN NULL; END IF;
                    INSERT INTO search_word_counts AS c (word, stripe, books, in_fields)
                        SELECT lexeme, (txid_current() % 64)::smallint, sum(book)::int, sum(in_fields)::int FROM (
                            SELECT lexeme, 1 AS book, (weights && '{A,B,C}')::int AS in_fields FROM unnest(came)
                            UNION ALL SELECT lexeme, -1, -((weights && '{A,B,C}')::int) FROM unnest(gone)) changes
                        GROUP BY lexeme HAVING sum(book) <> 0 OR sum(in_fields) <> 0 ORDER BY lexeme COLLATE "C"
                        ON CONFLICT (word, stripe) DO UPDATE SET books = c.books + excluded.books, in_fields = c.in_fields + excluded.in_fields;
                    RETURN NULL;
                END
                $$;
            CREATE OR REPLACE TRIGGER books_search_word_counts
                AFTER INSERT OR DELETE OR UPDATE OF title, subtitle, authors, series, subjects, description, withdrawn_at ON books
                FOR EACH ROW EXECUTE FUNCTION keep_search_word_counts();
            """
    )
}
