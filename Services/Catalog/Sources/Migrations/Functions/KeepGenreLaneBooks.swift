import PostgresSupport

extension CatalogFunction {
    /// As migration 28 ("Genre lanes in every order by index") last wrote it; why it is so is said there.
    static let keepGenreLaneBooks = DatabaseFunction(
        name: "keep_genre_lane_books",
        sql: """
            CREATE OR REPLACE FUNCTION keep_genre_lane_books() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF TG_OP <> 'INSERT' THEN
                        DELETE FROM genre_lane_books WHERE book_id = OLD.id;
                    END IF;
                    IF TG_OP <> 'DELETE' AND NEW.withdrawn_at IS NULL THEN
                        INSERT INTO genre_lane_books SELECT * FROM genre_lane_books_of(NEW);
                    END IF;
                    RETURN NULL;
                END
                $$;
            CREATE OR REPLACE TRIGGER books_genre_lane_books AFTER INSERT OR DELETE ON books
                FOR EACH ROW EXECUTE FUNCTION keep_genre_lane_books();
            -- Only when a kept value changes: a borrow's figures update (every borrow and return) mostly changes none.
            CREATE OR REPLACE TRIGGER books_genre_lane_books_update AFTER UPDATE ON books FOR EACH ROW
                WHEN (OLD.genres IS DISTINCT FROM NEW.genres OR (OLD.withdrawn_at IS NULL) <> (NEW.withdrawn_at IS NULL)
                    OR OLD.sort_title <> NEW.sort_title OR OLD.sort_author <> NEW.sort_author OR OLD.added_at <> NEW.added_at
                    OR coalesce(OLD.rating_average, 0) <> coalesce(NEW.rating_average, 0) OR OLD.popularity <> NEW.popularity
                    OR OLD.word_count <> NEW.word_count
                    OR (OLD.open_access OR OLD.copies_available > 0) <> (NEW.open_access OR NEW.copies_available > 0)
                    OR OLD.screen_reader_friendly <> NEW.screen_reader_friendly
                    OR OLD.declares_no_hazards <> NEW.declares_no_hazards)
                EXECUTE FUNCTION keep_genre_lane_books();
            """
    )
}
