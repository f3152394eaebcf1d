import PostgresSupport

extension CatalogFunction {
    /// `search_postings_page` without its candidates materialized: the subquery's LIMIT already keeps it from being
    /// merged with the page's conditions, and writing the 1,000 candidates to a tuple store and reading them back was a
    /// quarter of its time (`pgbench -M prepared`, 5 clients, a million books: 5,700 calls a second before, 7,600 after).
    /// A page of a word in at most 10,000 books (`FeedPostgresRepository.KeptEntriesPage`, read with its counts since migration 26; a quarter of the bench's
    /// random words) moves into a function for the reason migration 22 gave: PostgreSQL planned the named statement
    /// again at every run, which cost as much as running it. Its plan for any value reads the word's entries from
    /// `search_postings_by_key` in order and stops at the page, as the plans for each value did; the first page and a
    /// page after a cursor are two statements, since an `after IS NULL OR key < after` condition is no index bound.
    /// The same page with its books (`pgbench -M prepared`, 5 clients, "carol" in 7,515 books): 4,000-4,200 a second
    /// before, 6,400-6,750 after; after a cursor 3,500 before, 5,300-5,500 after.
    /// (Migration 24, "A searched word's page planned once per session", wrote it; the migrations hold schema changes only since 33.)
    static let searchKeptEntriesPage = DatabaseFunction(
        name: "search_kept_entries_page",
        sql: """
            CREATE OR REPLACE FUNCTION search_kept_entries_page(searched text, after_key real, after_id uuid, size bigint, skip bigint, hidden uuid[])
                RETURNS TABLE (book_id uuid, key real) LANGUAGE plpgsql STABLE ROWS 50 SET plan_cache_mode = force_generic_plan AS $$
                BEGIN
                    IF after_key IS NULL THEN
                        RETURN QUERY
                            SELECT e.book_id, e.key FROM (
                                SELECT p.book_id, (p.rank + 100)::real AS key FROM search_postings p
                                WHERE p.word = searched AND NOT (p.book_id = ANY(hidden))
                                ORDER BY (p.rank + 100)::real DESC, p.book_id LIMIT CASE WHEN size = 0 THEN 0 ELSE size + skip END) e
                            ORDER BY e.key DESC, e.book_id OFFSET skip;
                    ELSE
                        RETURN QUERY
                            WITH entries AS (
                                (SELECT p.book_id, (p.rank + 100)::real AS key FROM search_postings p
                                    WHERE p.word = searched AND (p.rank + 100)::real = after_key AND p.book_id > after_id AND NOT (p.book_id = ANY(hidden))
                                    ORDER BY p.book_id LIMIT CASE WHEN size = 0 THEN 0 ELSE size + skip END)
                                UNION ALL
                                (SELECT p.book_id, (p.rank + 100)::real FROM search_postings p
                                    WHERE p.word = searched AND (p.rank + 100)::real < after_key AND NOT (p.book_id = ANY(hidden))
                                    ORDER BY (p.rank + 100)::real DESC, p.book_id LIMIT CASE WHEN size = 0 THEN 0 ELSE size + skip END))
                            SELECT e.book_id, e.key FROM entries e ORDER BY e.key DESC, e.book_id LIMIT size OFFSET skip;
                    END IF;
                END
                $$;
            """
    )
}
