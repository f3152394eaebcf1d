import PostgresSupport

extension CatalogFunction {
    /// As migration 18 ("Books by word in popularity order") last wrote it; why it is so is said there.
    static let keepSearchPostings = DatabaseFunction(
        name: "keep_search_postings",
        sql: """
            CREATE OR REPLACE FUNCTION keep_search_postings() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF TG_OP = 'UPDATE' AND NEW.search = OLD.search AND NEW.popularity = OLD.popularity
                        AND (NEW.withdrawn_at IS NULL) = (OLD.withdrawn_at IS NULL) THEN
                        RETURN NULL;
                    END IF;
                    IF TG_OP <> 'INSERT' AND OLD.withdrawn_at IS NULL THEN
                        DELETE FROM search_postings p USING unnest(OLD.search) w
                        WHERE w.weights && '{A,B,C}' AND p.word = w.lexeme AND p.popularity = OLD.popularity AND p.book_id = OLD.id;
                    END IF;
                    IF TG_OP <> 'DELETE' AND NEW.withdrawn_at IS NULL THEN
                        INSERT INTO search_postings SELECT * FROM search_postings_of(NEW.search, NEW.popularity, NEW.id);
                    END IF;
                    RETURN NULL;
                END
                $$;
            CREATE OR REPLACE TRIGGER books_search_postings
                AFTER INSERT OR DELETE OR UPDATE OF title, subtitle, authors, series, subjects, popularity, withdrawn_at ON books
                FOR EACH ROW EXECUTE FUNCTION keep_search_postings();
            """
    )
}
