import PostgresSupport

extension CatalogFunction {
    /// As migration 28 ("Genre lanes in every order by index") last wrote it; why it is so is said there.
    static let genreLaneBooksOf = DatabaseFunction(
        name: "genre_lane_books_of",
        sql: """
            -- The rows of one book: its sort keys as `SortKey.expression` computes them on books.
            CREATE OR REPLACE FUNCTION genre_lane_books_of(b books) RETURNS SETOF genre_lane_books LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                SELECT DISTINCT genre, b.id, b.sort_title, lower(b.sort_author), b.added_at, coalesce(b.rating_average, 0),
                    b.popularity, b.word_count, b.open_access OR b.copies_available > 0, b.screen_reader_friendly,
                    b.declares_no_hazards
                FROM unnest(b.genres) genre
                $$;
            """
    )
}
