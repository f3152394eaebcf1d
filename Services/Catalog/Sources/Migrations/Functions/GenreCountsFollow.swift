import PostgresSupport

extension CatalogFunction {
    /// As migration 5 ("books per genre") last wrote it; why it is so is said there.
    static let genreCountsFollow = DatabaseFunction(
        name: "genre_counts_follow",
        sql: """
            CREATE OR REPLACE FUNCTION genre_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    INSERT INTO genre_counts AS c (genre, books)
                        SELECT g, count(*) FROM new_rows, unnest(genres) g WHERE withdrawn_at IS NULL GROUP BY g ORDER BY g
                        ON CONFLICT (genre) DO UPDATE SET books = c.books + excluded.books;
                ELSIF TG_OP = 'UPDATE' THEN
                    INSERT INTO genre_counts AS c (genre, books)
                        SELECT g, sum(d) FROM (
                            SELECT unnest(genres) AS g, 1 AS d FROM new_rows WHERE withdrawn_at IS NULL
                            UNION ALL SELECT unnest(genres), -1 FROM old_rows WHERE withdrawn_at IS NULL) changes
                        GROUP BY g HAVING sum(d) <> 0 ORDER BY g
                        ON CONFLICT (genre) DO UPDATE SET books = c.books + excluded.books;
                ELSE
                    UPDATE genre_counts c SET books = c.books - gone.n
                        FROM (SELECT g, count(*)::int AS n FROM old_rows, unnest(genres) g WHERE withdrawn_at IS NULL GROUP BY g ORDER BY g) gone
                        WHERE c.genre = gone.g;
                END IF;
                RETURN NULL;
            END $$;
            CREATE OR REPLACE TRIGGER genre_counts_insert AFTER INSERT ON books REFERENCING NEW TABLE AS new_rows
                FOR EACH STATEMENT EXECUTE FUNCTION genre_counts_follow();
            CREATE OR REPLACE TRIGGER genre_counts_update AFTER UPDATE ON books REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
                FOR EACH STATEMENT EXECUTE FUNCTION genre_counts_follow();
            CREATE OR REPLACE TRIGGER genre_counts_delete AFTER DELETE ON books REFERENCING OLD TABLE AS old_rows
                FOR EACH STATEMENT EXECUTE FUNCTION genre_counts_follow();
            """
    )
}
