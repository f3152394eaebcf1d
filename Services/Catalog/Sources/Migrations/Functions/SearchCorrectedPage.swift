import PostgresSupport

extension CatalogFunction {
    /// Two more statements a search planned or waited for at every run (a million books):
    /// - A word in at most 10,000 books read its counts (`search_word_counts_and_page`) and then, in a second round trip,
    ///   its kept entries' page (`search_kept_entries_page`): a quarter of the bench's random words. `search_word_page`
    ///   reads the counts and whichever page they call for, the common page or the kept entries', in one call.
    /// - A misspelled word's corrected search, a statement of ~60 lines that PostgreSQL planned at every run (1.5-1.9 ms,
    ///   as long as running it) after a round trip for its spellings' counts: `search_corrected_page` reads the counts
    ///   and ranks the query's matches (all of them up to `candidates`; past that, the most borrowed kept entries of its
    ///   spellings, each checked against the query; when they are too few, the most borrowed matches, in a statement
    ///   planned for its query since its plan depends on how many books match). It lists at most `size`, best first.
    /// `search_word_counts_and_page` stays for a replica of the previous version during a rolling upgrade.
    /// (Migration 26, "A searched word's counts and either page in one call, a corrected search planned once per session", wrote it; the migrations hold schema changes only since 33.)
    static let searchCorrectedPage = DatabaseFunction(
        name: "search_corrected_page",
        sql: """
            CREATE OR REPLACE FUNCTION search_corrected_page(query text, spellings text[], any_spelling_matches boolean, candidates int, size int, hidden uuid[])
                RETURNS TABLE (book_id uuid, key real, match_title text)
                LANGUAGE plpgsql STABLE ROWS 100 SET plan_cache_mode = force_generic_plan AS $$
                DECLARE
                    searched tsquery := to_tsquery('simple', immutable_unaccent(query));
                    most_books int := 0;
                    few uuid[];
                BEGIN
                    -- Every book with one of the spellings matches: the commonest's count is the fewest matches.
                    IF any_spelling_matches THEN
                        SELECT coalesce(max(w.books), 0)::int INTO most_books FROM (SELECT sum(c.books) AS books FROM search_word_counts c
                            WHERE c.word IN (SELECT (tsvector_to_array(to_tsvector('simple', immutable_unaccent(s))))[1] FROM unnest(spellings) s)
                            GROUP BY c.word) w;
                    END IF;
                    IF most_books - cardinality(hidden) <= candidates THEN
                        SELECT coalesce(array_agg(m.id), '{}') INTO few FROM (SELECT b.id FROM books b
                            WHERE b.withdrawn_at IS NULL AND b.search @@ searched AND NOT (b.id = ANY(hidden)) LIMIT candidates + 1) m;
                        IF cardinality(few) <= candidates THEN
                            RETURN QUERY SELECT b.id, ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', b.search, searched)::real AS r, b.sort_title FROM books b
                                WHERE b.id = ANY(few) ORDER BY r DESC, b.sort_title, b.id LIMIT size;
                            RETURN;
                        END IF;
                    END IF;
                    RETURN QUERY
                        WITH popular AS MATERIALIZED (
                            SELECT m.id, m.r, m.sort_title FROM (SELECT DISTINCT e.book_id, e.popularity FROM unnest(spellings) spelling
                                CROSS JOIN LATERAL (SELECT p.book_id, p.popularity FROM search_postings p
                                    WHERE p.word = (tsvector_to_array(to_tsvector('simple', immutable_unaccent(spelling))))[1]
                                    ORDER BY p.popularity DESC, p.book_id DESC LIMIT candidates) e) p
                            CROSS JOIN LATERAL (SELECT b.id, ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', b.search, searched)::real AS r, b.sort_title FROM books b
                                WHERE b.id = p.book_id AND b.withdrawn_at IS NULL AND b.search @@ searched AND NOT (b.id = ANY(hidden)) OFFSET 0) m
                            ORDER BY p.popularity DESC, p.book_id DESC LIMIT candidates)
                        SELECT c.id, c.r, c.sort_title FROM popular c WHERE (SELECT count(*) FROM popular) >= candidates
                        ORDER BY c.r DESC, c.sort_title, c.id LIMIT size;
                    IF FOUND THEN RETURN; END IF;
                    RETURN QUERY EXECUTE
                        'SELECT m.id, m.r, m.sort_title FROM (SELECT b.id, ts_rank_cd(''{0.1, 0.2, 0.4, 1.0}'', b.search, $1)::real AS r, b.sort_title '
                        'FROM books b WHERE b.withdrawn_at IS NULL AND b.search @@ $1 AND NOT (b.id = ANY($2)) '
                        'ORDER BY b.popularity DESC, b.id DESC LIMIT $3) m ORDER BY m.r DESC, m.sort_title, m.id LIMIT $4'
                        USING searched, hidden, candidates, size;
                END
                $$;
            """
    )
}
