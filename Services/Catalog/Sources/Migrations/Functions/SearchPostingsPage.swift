import PostgresSupport

extension CatalogFunction {
    /// A common word's page (`search_postings_page`, three quarters of the bench's random words) checked each of its 1,000
    /// candidates against the hidden books and the cursor, which a first page without hidden books (most searches) does
    /// not need: a statement of its own for that page. `pgbench -M prepared -c 2` of the function for the bench's words at
    /// a million books: 6,510-6,690 calls a second before, 7,620-7,880 after. The others are as before.
    /// (Migration 32, "A common word's first page without per-candidate conditions", wrote it; the migrations hold schema changes only since 33.)
    static let searchPostingsPage = DatabaseFunction(
        name: "search_postings_page",
        sql: """
            CREATE OR REPLACE FUNCTION search_postings_page(searched text, candidates bigint, after_key real, after_id uuid, size bigint, skip bigint, hidden uuid[])
                RETURNS TABLE (book_id uuid, key real) LANGUAGE plpgsql STABLE ROWS 50 SET plan_cache_mode = force_generic_plan AS $$
                BEGIN
                    IF after_key IS NULL AND cardinality(hidden) = 0 THEN
                        RETURN QUERY
                            SELECT r.book_id, r.key FROM (
                                SELECT p.book_id, (p.rank + 100)::real AS key FROM search_postings p
                                WHERE p.word = searched ORDER BY p.popularity DESC, p.book_id DESC LIMIT candidates) r
                            ORDER BY r.key DESC, r.book_id ASC LIMIT size OFFSET skip;
                        RETURN;
                    END IF;
                    RETURN QUERY
                        SELECT r.book_id, r.key FROM (
                            SELECT p.book_id, (p.rank + 100)::real AS key FROM search_postings p
                            WHERE p.word = searched AND NOT (p.book_id = ANY(hidden)) ORDER BY p.popularity DESC, p.book_id DESC LIMIT candidates) r
                        WHERE after_key IS NULL OR r.key < after_key OR (r.key = after_key AND r.book_id > after_id)
                        ORDER BY r.key DESC, r.book_id ASC LIMIT size OFFSET skip;
                END
                $$;
            """
    )
}
