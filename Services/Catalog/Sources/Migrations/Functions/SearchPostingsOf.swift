import PostgresSupport

extension CatalogFunction {
    /// As migration 18 ("Books by word in popularity order") last wrote it; why it is so is said there.
    static let searchPostingsOf = DatabaseFunction(
        name: "search_postings_of",
        sql: """
            CREATE OR REPLACE FUNCTION search_postings_of(vector tsvector, book_popularity integer, book uuid)
                RETURNS TABLE (word text, popularity integer, book_id uuid, rank real) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                SELECT w.lexeme, book_popularity, book, ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', vector, quote_literal(w.lexeme)::tsquery)
                FROM unnest(vector) w WHERE w.weights && '{A,B,C}'
                $$;
            """
    )
}
