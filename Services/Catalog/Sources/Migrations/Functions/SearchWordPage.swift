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
    static let searchWordPage = DatabaseFunction(
        name: "search_word_page",
        sql: """
            CREATE OR REPLACE FUNCTION search_word_page(searched text, prefix boolean, with_page boolean, bound int, candidates bigint,
                    after_key real, after_id uuid, size bigint, skip bigint, hidden uuid[])
                RETURNS TABLE (kept_word text, words_kept int, first_word text, most_books int, least_books int, least_in_fields int,
                    word_in_fields int, page_read boolean, entries_read boolean, book_id uuid, key real)
                LANGUAGE plpgsql STABLE ROWS 50 SET plan_cache_mode = force_generic_plan AS $$
                BEGIN
                    WITH term AS (SELECT (tsvector_to_array(to_tsvector('simple', immutable_unaccent(searched))))[1] AS word),
                    kept AS (SELECT c.word, sum(c.books)::int AS books, sum(c.in_fields)::int AS in_fields FROM search_word_counts c, term
                        WHERE c.word >= term.word AND c.word < term.word || CASE WHEN prefix THEN chr(1114111) ELSE chr(1) END
                        GROUP BY c.word HAVING sum(c.books) > 0)
                    SELECT term.word, count(kept.word)::int, min(kept.word), coalesce(max(kept.books), 0)::int, coalesce(min(kept.books), 0)::int,
                        coalesce(min(kept.in_fields), 0)::int, coalesce(max(kept.in_fields) FILTER (WHERE kept.word = term.word), 0)::int
                    INTO kept_word, words_kept, first_word, most_books, least_books, least_in_fields, word_in_fields
                    FROM term LEFT JOIN kept ON true GROUP BY term.word;
                    page_read := with_page AND most_books > bound AND word_in_fields >= candidates;
                    entries_read := with_page AND words_kept = 1 AND least_books <= bound;
                    IF page_read THEN
                        RETURN QUERY SELECT kept_word, words_kept, first_word, most_books, least_books, least_in_fields, word_in_fields, true, false,
                            p.book_id, p.key FROM search_postings_page(kept_word, candidates, after_key, after_id, size, skip, hidden) p;
                        IF FOUND THEN RETURN; END IF;
                    ELSIF entries_read THEN
                        RETURN QUERY SELECT kept_word, words_kept, first_word, most_books, least_books, least_in_fields, word_in_fields, false, true,
                            p.book_id, p.key FROM search_kept_entries_page(first_word, after_key, after_id, size, skip, hidden) p;
                        IF FOUND THEN RETURN; END IF;
                    END IF;
                    RETURN NEXT;
                END
                $$;
            """
    )
}
