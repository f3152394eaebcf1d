import PostgresSupport
import ServiceSupport

/// The catalog database schema, one migration per change. Never edit a shipped migration.
let catalogMigrations: [Migration] = [
    Migration(
        version: 1,
        name: "books",
        sql: """
            CREATE EXTENSION IF NOT EXISTS pg_trgm;
            CREATE EXTENSION IF NOT EXISTS unaccent;
            CREATE FUNCTION immutable_unaccent(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
                AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;
            CREATE FUNCTION immutable_join(text[]) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
                AS $$ SELECT array_to_string($1, ' ') $$;
            CREATE TABLE books (
                id uuid PRIMARY KEY,
                title text NOT NULL,
                subtitle text,
                sort_title text NOT NULL,
                sort_author text NOT NULL DEFAULT '',
                authors text[] NOT NULL DEFAULT '{}',
                contributors jsonb NOT NULL DEFAULT '[]',
                languages text[] NOT NULL DEFAULT '{}',
                publisher text,
                published text,
                description text,
                subjects text[] NOT NULL DEFAULT '{}',
                genres text[] NOT NULL DEFAULT '{}',
                isbn text UNIQUE,
                identifiers text[] NOT NULL DEFAULT '{}',
                series text,
                series_position double precision,
                page_progression text,
                fixed_layout boolean NOT NULL DEFAULT false,
                word_count integer NOT NULL DEFAULT 0,
                reading_minutes integer NOT NULL DEFAULT 0,
                epub_sha256 text NOT NULL UNIQUE,
                epub_size bigint NOT NULL,
                cover_sha256 text,
                cover_type text,
                toc jsonb NOT NULL DEFAULT '[]',
                page_list jsonb NOT NULL DEFAULT '[]',
                landmarks jsonb NOT NULL DEFAULT '[]',
                reading_order jsonb NOT NULL DEFAULT '[]',
                resources jsonb NOT NULL DEFAULT '[]',
                warnings text[] NOT NULL DEFAULT '{}',
                open_access boolean NOT NULL DEFAULT false,
                featured boolean NOT NULL DEFAULT false,
                staff_pick boolean NOT NULL DEFAULT false,
                copies integer NOT NULL DEFAULT 1 CHECK (copies >= 0),
                copies_available integer NOT NULL DEFAULT 1,
                holds integer NOT NULL DEFAULT 0,
                checkouts integer NOT NULL DEFAULT 0,
                rating_average double precision,
                rating_count integer NOT NULL DEFAULT 0,
                figures_version bigint NOT NULL DEFAULT 0,
                license_version bigint NOT NULL DEFAULT 1,
                edition integer NOT NULL DEFAULT 1,
                added_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                updated_at timestamptz NOT NULL DEFAULT now(),
                withdrawn_at timestamptz,
                search tsvector GENERATED ALWAYS AS (
                    setweight(to_tsvector('simple', immutable_unaccent(coalesce(title, '') || ' ' || coalesce(subtitle, ''))), 'A') ||
                    setweight(to_tsvector('simple', immutable_unaccent(immutable_join(authors) || ' ' || coalesce(series, ''))), 'B') ||
                    setweight(to_tsvector('simple', immutable_unaccent(immutable_join(subjects))), 'C') ||
                    setweight(to_tsvector('simple', immutable_unaccent(coalesce(description, ''))), 'D')) STORED
            );
            CREATE INDEX books_search ON books USING gin (search);
            CREATE INDEX books_title_trgm ON books USING gin (immutable_unaccent(lower(title)) gin_trgm_ops);
            CREATE INDEX books_added ON books (added_at DESC, id);
            CREATE INDEX books_sort_title ON books (sort_title, id);
            CREATE INDEX books_genres ON books USING gin (genres);
            """ + "\n" + OutboxPostgresRepository.migrationSQL
    ),
    Migration(
        version: 2,
        name: "indexes for every lane sort",
        sql: """
            CREATE INDEX books_checkouts ON books (checkouts, id);
            CREATE INDEX books_rating ON books ((coalesce(rating_average, 0)), id);
            CREATE INDEX books_sort_author ON books ((lower(sort_author)), id);
            CREATE INDEX books_word_count ON books (word_count, id);
            CREATE INDEX books_featured ON books (added_at, id) WHERE featured;
            CREATE INDEX books_staff_picks ON books (added_at, id) WHERE staff_pick;
            """
    ),
    Migration(
        version: 3,
        name: "cover thumbnails",
        sql: """
            ALTER TABLE books ADD COLUMN thumbnail_sha256 text, ADD COLUMN thumbnail_type text;
            """
    ),
    // Every candidate row of a search reads its vector: kept in the row (compressed) rather than in TOAST, a
    // search for a word found in a fifth of 100,000 books went from ~900 ms to ~330 ms. Existing rows are
    // rewritten so that their vector moves in (a stored generated column is recomputed on every update).
    Migration(
        version: 4,
        name: "search vector stored in the row",
        sql: """
            ALTER TABLE books ALTER COLUMN search SET STORAGE MAIN;
            UPDATE books SET title = title;
            """
    ),
    // How many books (not withdrawn) each genre has, kept by statement triggers in the same transaction as the
    // change: the root feed's genre lanes were 30 index probes (~130 ms at 100,000 books), now one small read.
    // Counters are updated in genre order, so that concurrent ingests lock them in the same order.
    Migration(
        version: 5,
        name: "books per genre",
        sql: """
            CREATE TABLE genre_counts (genre text PRIMARY KEY, books integer NOT NULL);
            INSERT INTO genre_counts (genre, books)
                SELECT g, count(*) FROM books, unnest(genres) g WHERE withdrawn_at IS NULL GROUP BY g;
            CREATE FUNCTION genre_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
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
            CREATE TRIGGER genre_counts_insert AFTER INSERT ON books REFERENCING NEW TABLE AS new_rows
                FOR EACH STATEMENT EXECUTE FUNCTION genre_counts_follow();
            CREATE TRIGGER genre_counts_update AFTER UPDATE ON books REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
                FOR EACH STATEMENT EXECUTE FUNCTION genre_counts_follow();
            CREATE TRIGGER genre_counts_delete AFTER DELETE ON books REFERENCING OLD TABLE AS old_rows
                FOR EACH STATEMENT EXECUTE FUNCTION genre_counts_follow();
            """
    ),
    // Covers are raster images only (an SVG can carry script): earlier covers of another type are dropped, and patron
    // learns through the outbox that those books have none.
    Migration(
        version: 6,
        name: "raster covers only",
        sql: """
            WITH dropped AS (
                UPDATE books SET cover_sha256 = NULL, cover_type = NULL, thumbnail_sha256 = NULL, thumbnail_type = NULL,
                    license_version = license_version + 1, updated_at = now()
                WHERE cover_sha256 IS NOT NULL AND coalesce(cover_type, '') NOT IN ('image/jpeg', 'image/png', 'image/gif', 'image/webp')
                RETURNING id, copies, open_access, withdrawn_at IS NOT NULL AS withdrawn, title, authors, license_version)
            INSERT INTO outbox (key, path, payload)
                SELECT 'license:' || id, '/internal/licenses/' || id, jsonb_build_object('bookId', id, 'copies', copies, 'openAccess', open_access,
                    'withdrawn', withdrawn, 'title', title, 'authors', authors, 'version', license_version, 'hasCover', false)
                FROM dropped
            ON CONFLICT (key) DO UPDATE SET path = EXCLUDED.path, payload = EXCLUDED.payload,
                revision = outbox.revision + 1, attempts = 0, next_attempt_at = now();
            """
    ),
    // Patron's copy of each patron's shelf (ShelfCopyPostgresRepository): feeds are personalised from it without a call.
    Migration(
        version: 7,
        name: "copies of patrons' shelves",
        sql: """
            CREATE TABLE patron_shelves (
                patron_id uuid PRIMARY KEY,
                version bigint NOT NULL,
                shelf jsonb NOT NULL,
                updated_at timestamptz NOT NULL DEFAULT now()
            );
            """
    ),
    // Books without a cover get one drawn (GeneratedCover); a real cover replaces a drawn one.
    Migration(
        version: 8,
        name: "where covers come from",
        sql: """
            ALTER TABLE books ADD COLUMN cover_source text CHECK (cover_source IN ('epub', 'generated', 'uploaded'));
            UPDATE books SET cover_source = 'epub' WHERE cover_sha256 IS NOT NULL;
            """
    ),
    // Accessibility metadata (Readium's accessibility object) with the two facts lanes and search filter on, and the
    // print page count from the page list. Books ingested before have none until they are ingested again.
    Migration(
        version: 9,
        name: "accessibility and page count",
        sql: """
            ALTER TABLE books ADD COLUMN accessibility jsonb,
                ADD COLUMN screen_reader_friendly boolean NOT NULL DEFAULT false,
                ADD COLUMN declares_no_hazards boolean NOT NULL DEFAULT false,
                ADD COLUMN page_count integer;
            UPDATE books SET page_count = nullif(jsonb_array_length(page_list), 0) WHERE jsonb_typeof(page_list) = 'array';
            """
    ),
    // Which version of the EPUB reader last derived a book's metadata (`ParsedBook.readerVersion`): books stored by an
    // older one are read again from their stored EPUB by `catalog reread-metadata`.
    Migration(
        version: 10,
        name: "reader version of each book",
        sql: "ALTER TABLE books ADD COLUMN reader_version smallint NOT NULL DEFAULT 0;"
    ),
    // Named, ordered lists of books: a patron's own (owner set; private until made public) and staff lists (no owner;
    // featured ones are lanes of the root and grouped feeds).
    Migration(
        version: 11,
        name: "book lists",
        sql: """
            CREATE TABLE book_lists (
                id uuid PRIMARY KEY,
                owner_patron_id uuid,
                title text NOT NULL,
                description text NOT NULL DEFAULT '',
                public boolean NOT NULL DEFAULT false,
                featured boolean NOT NULL DEFAULT false,
                created_at timestamptz NOT NULL DEFAULT now(),
                updated_at timestamptz NOT NULL DEFAULT now()
            );
            CREATE INDEX book_lists_owner ON book_lists (owner_patron_id, created_at);
            CREATE INDEX book_lists_featured ON book_lists (created_at) WHERE featured AND owner_patron_id IS NULL;
            CREATE TABLE book_list_items (
                list_id uuid NOT NULL REFERENCES book_lists ON DELETE CASCADE,
                book_id uuid NOT NULL REFERENCES books,
                position integer NOT NULL,
                PRIMARY KEY (list_id, book_id)
            );
            CREATE INDEX book_list_items_order ON book_list_items (list_id, position);
            """
    ),
    // Version 12 put a RUM index in the GIN index's place where the extension could be had; version 13 takes it back.
    Migration(
        version: 12,
        name: "RUM search index where available",
        sql: """
            DO $$
            BEGIN
                IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'rum') THEN
                    BEGIN
                        CREATE EXTENSION IF NOT EXISTS rum;
                    EXCEPTION WHEN insufficient_privilege THEN
                        RAISE NOTICE 'rum is available but cannot be created here: search keeps its GIN index';
                    END;
                END IF;
                IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'rum') THEN
                    CREATE INDEX books_search_rum ON books USING rum (search rum_tsvector_ops);
                    DROP INDEX books_search;
                END IF;
            END
            $$;
            """
    ),
    // RUM crashed PostgreSQL (signal 11 in a backend, every connection of every service dropped) under concurrent
    // searches at a million books, and has open reports of crashes in its scans (postgrespro/rum#144, #183): search
    // goes back to the GIN index, and the extension is dropped where this database created it.
    Migration(
        version: 13,
        name: "GIN search index again, without RUM",
        sql: """
            CREATE INDEX IF NOT EXISTS books_search ON books USING gin (search);
            DROP INDEX IF EXISTS books_search_rum;
            DO $$
            BEGIN
                DROP EXTENSION IF EXISTS rum;
            EXCEPTION WHEN insufficient_privilege OR dependent_objects_still_exist THEN
                RAISE NOTICE 'rum stays installed; search no longer uses it';
            END
            $$;
            """
    ),
    // A genre lane (and the grouped feed, which shows every one) walked the title index and skipped the books of other
    // genres: 370 ms for poetry at a million books. One partial index per genre of `Genres.all` (written out: a
    // migration does not change when the list does; a new genre needs a new migration) makes it 0.1 ms.
    Migration(
        version: 14,
        name: "Genre lanes in title order by index",
        sql: """
            CREATE INDEX IF NOT EXISTS books_genre_fiction_title ON books (sort_title, id)
                WHERE genres @> ARRAY['fiction'] AND withdrawn_at IS NULL;
            CREATE INDEX IF NOT EXISTS books_genre_mystery_title ON books (sort_title, id)
                WHERE genres @> ARRAY['mystery'] AND withdrawn_at IS NULL;
            CREATE INDEX IF NOT EXISTS books_genre_science_fiction_title ON books (sort_title, id)
                WHERE genres @> ARRAY['science-fiction'] AND withdrawn_at IS NULL;
            CREATE INDEX IF NOT EXISTS books_genre_romance_title ON books (sort_title, id)
                WHERE genres @> ARRAY['romance'] AND withdrawn_at IS NULL;
            CREATE INDEX IF NOT EXISTS books_genre_horror_title ON books (sort_title, id)
                WHERE genres @> ARRAY['horror'] AND withdrawn_at IS NULL;
            CREATE INDEX IF NOT EXISTS books_genre_poetry_title ON books (sort_title, id)
                WHERE genres @> ARRAY['poetry'] AND withdrawn_at IS NULL;
            CREATE INDEX IF NOT EXISTS books_genre_drama_title ON books (sort_title, id)
                WHERE genres @> ARRAY['drama'] AND withdrawn_at IS NULL;
            CREATE INDEX IF NOT EXISTS books_genre_history_title ON books (sort_title, id)
                WHERE genres @> ARRAY['history'] AND withdrawn_at IS NULL;
            CREATE INDEX IF NOT EXISTS books_genre_biography_title ON books (sort_title, id)
                WHERE genres @> ARRAY['biography'] AND withdrawn_at IS NULL;
            CREATE INDEX IF NOT EXISTS books_genre_science_title ON books (sort_title, id)
                WHERE genres @> ARRAY['science'] AND withdrawn_at IS NULL;
            CREATE INDEX IF NOT EXISTS books_genre_philosophy_title ON books (sort_title, id)
                WHERE genres @> ARRAY['philosophy'] AND withdrawn_at IS NULL;
            CREATE INDEX IF NOT EXISTS books_genre_children_title ON books (sort_title, id)
                WHERE genres @> ARRAY['children'] AND withdrawn_at IS NULL;
            CREATE INDEX IF NOT EXISTS books_genre_adventure_title ON books (sort_title, id)
                WHERE genres @> ARRAY['adventure'] AND withdrawn_at IS NULL;
            CREATE INDEX IF NOT EXISTS books_genre_reference_title ON books (sort_title, id)
                WHERE genres @> ARRAY['reference'] AND withdrawn_at IS NULL;
            CREATE INDEX IF NOT EXISTS books_genre_nonfiction_title ON books (sort_title, id)
                WHERE genres @> ARRAY['nonfiction'] AND withdrawn_at IS NULL;
            """
    ),
    // Every borrow and return brings a book's figures, and `checkouts` had an index (the popularity order), so no
    // figures update was HOT: each put a new entry into every index of books (0.42 ms, a quarter of PostgreSQL's time
    // under a borrowing storm). The order now reads `popularity`, which follows `checkouts` exactly below 20 and then
    // within a tenth (`ApplyFigures`), so most updates change no indexed column; pages keep room for their new versions.
    Migration(
        version: 15,
        name: "Popularity apart from checkouts, figures updated in place",
        sql: """
            ALTER TABLE books ADD COLUMN IF NOT EXISTS popularity integer NOT NULL DEFAULT 0;
            UPDATE books SET popularity = checkouts WHERE popularity <> checkouts;
            CREATE INDEX IF NOT EXISTS books_popularity ON books (popularity, id);
            DROP INDEX IF EXISTS books_checkouts;
            ALTER TABLE books SET (fillfactor = 90);
            -- Figures updates change no column the planner's estimates need, yet counted towards the next ANALYZE: at
            -- a thousand borrows a second books was analysed every 12 s (2.8 s each at 100,000 books). Less often,
            -- and without the package columns no query filters on (1.6 s).
            ALTER TABLE books SET (autovacuum_analyze_scale_factor = 0.5);
            ALTER TABLE books ALTER COLUMN toc SET STATISTICS 0, ALTER COLUMN resources SET STATISTICS 0,
                ALTER COLUMN reading_order SET STATISTICS 0, ALTER COLUMN contributors SET STATISTICS 0,
                ALTER COLUMN landmarks SET STATISTICS 0, ALTER COLUMN page_list SET STATISTICS 0;
            """
    ),
    // A search with few matches was followed by the titles that looked like the whole query (trigram similarity over
    // every title): for a short word the trigram index yielded ~65,000 candidate titles at a million books (0.3-0.9 s).
    // A typo is in a word, so words are corrected instead: the catalogue's words (of titles, authors, series and
    // subjects) are kept once each in `search_words`, small beside `books`, with their own trigram index. Words are
    // only added (a word whose books went finds nothing and costs nothing); a book's words are inserted in order, so
    // two ingests sharing words wait for each other rather than deadlock. The title trigram index is no longer read.
    Migration(
        version: 16,
        name: "Catalogue words for typo correction",
        sql: """
            CREATE TABLE search_words (word text PRIMARY KEY);
            CREATE INDEX search_words_trigrams ON search_words USING gin (word gin_trgm_ops);
            CREATE FUNCTION book_words(title text, subtitle text, authors text[], series text, subjects text[]) RETURNS SETOF text
                LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                SELECT lexeme FROM unnest(to_tsvector('simple', immutable_unaccent(coalesce(title, '') || ' ' || coalesce(subtitle, '')
                    || ' ' || immutable_join(authors) || ' ' || coalesce(series, '') || ' ' || immutable_join(subjects))))
                WHERE length(lexeme) BETWEEN 3 AND 64 AND lexeme ~ '^[[:alpha:]][[:alnum:]]*$'
                $$;
            CREATE FUNCTION remember_book_words() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    INSERT INTO search_words (word)
                    SELECT word FROM book_words(NEW.title, NEW.subtitle, NEW.authors, NEW.series, NEW.subjects) word ORDER BY word
                    ON CONFLICT DO NOTHING;
                    RETURN NULL;
                END
                $$;
            CREATE TRIGGER books_words AFTER INSERT OR UPDATE OF title, subtitle, authors, series, subjects ON books
                FOR EACH ROW EXECUTE FUNCTION remember_book_words();
            INSERT INTO search_words (word)
            SELECT DISTINCT word FROM books, book_words(title, subtitle, authors, series, subjects) word ORDER BY word
            ON CONFLICT DO NOTHING;
            DROP INDEX IF EXISTS books_title_trgm;
            """
    ),
    // The blob sweeper asks, for each blob on disk, whether a book uses it as its file, cover or thumbnail; only the file
    // had an index, so every batch of 1,000 blobs read the whole table twice (2.4 s at a million books: hours a sweep for
    // a million books' files and covers).
    Migration(
        version: 17,
        name: "Books by cover and thumbnail",
        sql: """
            CREATE INDEX books_cover_sha256 ON books (cover_sha256) WHERE cover_sha256 IS NOT NULL;
            CREATE INDEX books_thumbnail_sha256 ON books (thumbnail_sha256) WHERE thumbnail_sha256 IS NOT NULL;
            """
    ),
    // A word in more books than a search counts is answered from its most borrowed matches, which the GIN index cannot
    // give in that order: reading the popularity index and checking each book's vector took 80,000 rows (~105 ms) for
    // a word in 2.6 % of a million books. Each word of a book's title, subtitle, authors, series and subjects (the
    // vector's weights A to C) is kept here with the book's popularity, in that order, and the word's rank in the book
    // (what `ts_rank_cd` gives a search for that word alone): the most borrowed books with the word in those fields,
    // and how well each matches it, are the first entries of its range in the index (~9 a book; the description's
    // words are not kept). The trigger keeps the rows with the book: its words, popularity and withdrawal.
    Migration(
        version: 18,
        name: "Books by word in popularity order",
        sql: """
            CREATE FUNCTION search_postings_of(vector tsvector, book_popularity integer, book uuid)
                RETURNS TABLE (word text, popularity integer, book_id uuid, rank real) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                SELECT w.lexeme, book_popularity, book, ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', vector, quote_literal(w.lexeme)::tsquery)
                FROM unnest(vector) w WHERE w.weights && '{A,B,C}'
                $$;
            CREATE TABLE search_postings (word text NOT NULL, popularity integer NOT NULL, book_id uuid NOT NULL, rank real NOT NULL);
            INSERT INTO search_postings SELECT p.* FROM books b, search_postings_of(b.search, b.popularity, b.id) p
            WHERE b.withdrawn_at IS NULL;
            ALTER TABLE search_postings ADD PRIMARY KEY (word, popularity, book_id) INCLUDE (rank);
            ANALYZE search_postings;
            CREATE FUNCTION keep_search_postings() RETURNS trigger LANGUAGE plpgsql AS $$
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
            CREATE TRIGGER books_search_postings
                AFTER INSERT OR DELETE OR UPDATE OF title, subtitle, authors, series, subjects, popularity, withdrawn_at ON books
                FOR EACH ROW EXECUTE FUNCTION keep_search_postings();
            """
    ),
    // A one-word search with fewer matches than the count's bound ranked every match: ~3,000-10,000 books' vectors read
    // from the heap (20-50 ms at a million books), and the count alone read them when the word's kept entries did not
    // pass the bound. How many books (on the shelves) have each word, and how many in their title, subtitle, authors,
    // series or subjects, is kept here: one row read counts a word's matches, and when every match has the word in
    // those fields its kept entries (`search_postings`, with their rank) are the matches, read from their index alone.
    // The trigger updates a book's words in word order, so that concurrent ingests sharing words wait rather than
    // deadlock.
    Migration(
        version: 19,
        name: "Books per search word",
        sql: """
            CREATE TABLE search_word_counts (word text COLLATE "C" PRIMARY KEY, books integer NOT NULL, in_fields integer NOT NULL);
            INSERT INTO search_word_counts (word, books, in_fields)
                SELECT w.lexeme, count(*), count(*) FILTER (WHERE w.weights && '{A,B,C}') FROM books b, unnest(b.search) w
                WHERE b.withdrawn_at IS NULL GROUP BY w.lexeme;
            CREATE FUNCTION keep_search_word_counts() RETURNS trigger LANGUAGE plpgsql AS $$
                DECLARE
                    gone tsvector := '';
                    came tsvector := '';
                BEGIN
                    IF TG_OP <> 'INSERT' AND OLD.withdrawn_at IS NULL THEN gone := OLD.search; END IF;
                    IF TG_OP <> 'DELETE' AND NEW.withdrawn_at IS NULL THEN came := NEW.search; END IF;
                    IF gone = came THEN RETURN NULL; END IF;
                    INSERT INTO search_word_counts AS c (word, books, in_fields)
                        SELECT lexeme, sum(book)::int, sum(in_fields)::int FROM (
                            SELECT lexeme, 1 AS book, (weights && '{A,B,C}')::int AS in_fields FROM unnest(came)
                            UNION ALL SELECT lexeme, -1, -((weights && '{A,B,C}')::int) FROM unnest(gone)) changes
                        GROUP BY lexeme HAVING sum(book) <> 0 OR sum(in_fields) <> 0 ORDER BY lexeme COLLATE "C"
                        ON CONFLICT (word) DO UPDATE SET books = c.books + excluded.books, in_fields = c.in_fields + excluded.in_fields;
                    RETURN NULL;
                END
                $$;
            CREATE TRIGGER books_search_word_counts
                AFTER INSERT OR DELETE OR UPDATE OF title, subtitle, authors, series, subjects, description, withdrawn_at ON books
                FOR EACH ROW EXECUTE FUNCTION keep_search_word_counts();
            ANALYZE search_word_counts;
            """
    ),
    // A one-word search whose word is in 1,000-10,000 books ranked every kept entry of the word for each page
    // (~8,600 entries: 5-8 ms at a million books, a quarter of the random words' searches). This index holds them in
    // the order of those pages: the search's key (rank + `FeedPostgresRepository.inFieldsBoost`, 100, as real: the
    // statement's expression must be this one), then id; a page is read from it in order.
    Migration(
        version: 20,
        name: "Kept search entries in the order of a one-word search",
        sql: """
            CREATE INDEX search_postings_by_key ON search_postings (word, ((rank + 100)::real) DESC, book_id);
            """
    ),
    // Every ingest updated the counts of the words it shares with every other ("the", "and", ...), so concurrent
    // ingests waited on each other's rows until commit: at a million books, a seventh of ingest's time. Each
    // transaction now updates the rows of one of 64 stripes (by its transaction id), so concurrent ones seldom meet;
    // a word's counts are the sums of its stripes (`search_word_totals`), and one stripe may go below zero.
    Migration(
        version: 21,
        name: "Books per search word in stripes",
        sql: """
            ALTER TABLE search_word_counts ADD COLUMN stripe smallint NOT NULL DEFAULT 0;
            ALTER TABLE search_word_counts DROP CONSTRAINT search_word_counts_pkey, ADD PRIMARY KEY (word, stripe);
            CREATE VIEW search_word_totals AS
                SELECT word, sum(books)::int AS books, sum(in_fields)::int AS in_fields FROM search_word_counts GROUP BY word;
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
            """
    ),
    // The page of a search for a common word (`FeedPostgresRepository.PostingsPage`, since migration 25 read with the
    // word's counts) was planned again at every run:
    // PostgreSQL kept choosing a custom plan for the named statement (its plan for unknown values costs more on paper),
    // and planning it cost about a third of running it (`pgbench -M prepared`, 6 clients, a million books: 2,572 runs a
    // second, 3,250 through this function). A PL/pgSQL function's statements are prepared once per session, and this
    // one is told to use a plan for any value: the candidates are read from the same index whatever the word, and the
    // page's size and offset only bound sorts at run time. The key is the search's (rank + `inFieldsBoost`, 100).
    Migration(
        version: 22,
        name: "A common word's search page planned once per session",
        sql: """
            CREATE FUNCTION search_postings_page(searched text, candidates bigint, after_key real, after_id uuid, size bigint, skip bigint, hidden uuid[])
                RETURNS TABLE (book_id uuid, key real) LANGUAGE plpgsql STABLE ROWS 50 SET plan_cache_mode = force_generic_plan AS $$
                BEGIN
                    RETURN QUERY
                        WITH ranked AS MATERIALIZED (
                            SELECT p.book_id, (p.rank + 100)::real AS key FROM search_postings p
                            WHERE p.word = searched AND NOT (p.book_id = ANY(hidden)) ORDER BY p.popularity DESC, p.book_id DESC LIMIT candidates)
                        SELECT r.book_id, r.key FROM ranked r
                        WHERE after_key IS NULL OR r.key < after_key OR (r.key = after_key AND r.book_id > after_id)
                        ORDER BY r.key DESC, r.book_id ASC LIMIT size OFFSET skip;
                END
                $$;
            """
    ),
    // Every feed entry sends its book's description, and PostgreSQL had moved every description out of the row into
    // TOAST (the row's other long values, kept in it, left it no room): each entry of a page was one more index probe
    // and heap read of `books`' TOAST table, a tenth of PostgreSQL's time on a search page at a million books. Kept in
    // the row (compressed) unless nothing else can make room, the detail-only tables of contents and resources go
    // out instead. Rows written before keep their layout until rewritten: `VACUUM FULL books` (README) moves them in.
    Migration(
        version: 23,
        name: "A book's description kept in its row",
        sql: """
            ALTER TABLE books ALTER COLUMN description SET STORAGE MAIN;
            """
    ),
    // `search_postings_page` without its candidates materialized: the subquery's LIMIT already keeps it from being
    // merged with the page's conditions, and writing the 1,000 candidates to a tuple store and reading them back was a
    // quarter of its time (`pgbench -M prepared`, 5 clients, a million books: 5,700 calls a second before, 7,600 after).
    // A page of a word in at most 10,000 books (`FeedPostgresRepository.KeptEntriesPage`, read with its counts since migration 26; a quarter of the bench's
    // random words) moves into a function for the reason migration 22 gave: PostgreSQL planned the named statement
    // again at every run, which cost as much as running it. Its plan for any value reads the word's entries from
    // `search_postings_by_key` in order and stops at the page, as the plans for each value did; the first page and a
    // page after a cursor are two statements, since an `after IS NULL OR key < after` condition is no index bound.
    // The same page with its books (`pgbench -M prepared`, 5 clients, "carol" in 7,515 books): 4,000-4,200 a second
    // before, 6,400-6,750 after; after a cursor 3,500 before, 5,300-5,500 after.
    Migration(
        version: 24,
        name: "A searched word's page planned once per session",
        sql: """
            CREATE OR REPLACE FUNCTION search_postings_page(searched text, candidates bigint, after_key real, after_id uuid, size bigint, skip bigint, hidden uuid[])
                RETURNS TABLE (book_id uuid, key real) LANGUAGE plpgsql STABLE ROWS 50 SET plan_cache_mode = force_generic_plan AS $$
                BEGIN
                    RETURN QUERY
                        SELECT r.book_id, r.key FROM (
                            SELECT p.book_id, (p.rank + 100)::real AS key FROM search_postings p
                            WHERE p.word = searched AND NOT (p.book_id = ANY(hidden)) ORDER BY p.popularity DESC, p.book_id DESC LIMIT candidates) r
                        WHERE after_key IS NULL OR r.key < after_key OR (r.key = after_key AND r.book_id > after_id)
                        ORDER BY r.key DESC, r.book_id ASC LIMIT size OFFSET skip;
                END
                $$;
            CREATE FUNCTION search_kept_entries_page(searched text, after_key real, after_id uuid, size bigint, skip bigint, hidden uuid[])
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
    ),
    // A one-word search read the word's counts (`search_word_counts`) and then, when they called for it, its page of
    // most borrowed entries: two statements, each a round trip and an executor's start, ~190 us of catalog's and
    // PostgreSQL's time together at a million books (a build that ran the counts twice, against one that ran them once).
    // One function now reads the counts and, when asked and they call for it, the page (`search_postings_page`).
    Migration(
        version: 25,
        name: "A searched word's counts and its common page in one call",
        sql: """
            CREATE FUNCTION search_word_counts_and_page(searched text, prefix boolean, with_page boolean, bound int, candidates bigint,
                    after_key real, after_id uuid, size bigint, skip bigint, hidden uuid[])
                RETURNS TABLE (kept_word text, words_kept int, first_word text, most_books int, least_books int, least_in_fields int,
                    word_in_fields int, page_read boolean, book_id uuid, key real)
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
                    IF page_read THEN
                        RETURN QUERY SELECT kept_word, words_kept, first_word, most_books, least_books, least_in_fields, word_in_fields, true,
                            p.book_id, p.key FROM search_postings_page(kept_word, candidates, after_key, after_id, size, skip, hidden) p;
                        IF FOUND THEN RETURN; END IF;
                    END IF;
                    RETURN NEXT;
                END
                $$;
            """
    ),
    // Two more statements a search planned or waited for at every run (a million books):
    // - A word in at most 10,000 books read its counts (`search_word_counts_and_page`) and then, in a second round trip,
    //   its kept entries' page (`search_kept_entries_page`): a quarter of the bench's random words. `search_word_page`
    //   reads the counts and whichever page they call for, the common page or the kept entries', in one call.
    // - A misspelled word's corrected search, a statement of ~60 lines that PostgreSQL planned at every run (1.5-1.9 ms,
    //   as long as running it) after a round trip for its spellings' counts: `search_corrected_page` reads the counts
    //   and ranks the query's matches (all of them up to `candidates`; past that, the most borrowed kept entries of its
    //   spellings, each checked against the query; when they are too few, the most borrowed matches, in a statement
    //   planned for its query since its plan depends on how many books match). It lists at most `size`, best first.
    // `search_word_counts_and_page` stays for a replica of the previous version during a rolling upgrade.
    Migration(
        version: 26,
        name: "A searched word's counts and either page in one call, a corrected search planned once per session",
        sql: """
            CREATE FUNCTION search_word_page(searched text, prefix boolean, with_page boolean, bound int, candidates bigint,
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
            CREATE FUNCTION search_corrected_page(query text, spellings text[], any_spelling_matches boolean, candidates int, size int, hidden uuid[])
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
    ),
    // A lane with an accessibility facet (`AccessibilityFacet.condition`) walked its sort's index and skipped every book
    // without the facet: when few books have it, every book (0.5 s a page at a million books with none). The books with
    // each facet are indexed on their own, so that a rare facet's matches are read from it and sorted; a common one
    // still follows the sort's index (the planner weighs the two by the facet's share).
    Migration(
        version: 27,
        name: "Books with each accessibility facet indexed",
        sql: """
            CREATE INDEX books_screen_reader_friendly ON books (id) WHERE screen_reader_friendly AND withdrawn_at IS NULL;
            CREATE INDEX books_declares_no_hazards ON books (id) WHERE declares_no_hazards AND withdrawn_at IS NULL;
            """
    ),
    // A genre lane in any order but title's (only title had an index per genre, migration 14) walked that order's
    // index over every book and skipped the other genres': page 10 of poetry by author read ~12,000 books (6 ms at a
    // million books), and a mix of every lane, sort and facet spent 2.4x a plain lane page's time in PostgreSQL. Each
    // book on the shelves is kept here once per genre with its sort keys and facet flags (narrow rows, kept by the
    // trigger with the book), indexed by genre in every order a lane offers: a page reads its 51 rows from one index
    // and then those books by id. It serves title order too, so migration 14's fifteen partial indexes go: every
    // statement on books is planned against each index of books, and an update of an indexed column writes to them.
    // A rare accessibility facet is read from its own partial index and sorted, as on books (migration 27). Series order
    // had no index at all: a search for "the" in series order sorted every match (0.7 s); only a series lane offers it
    // among the lanes now (`Lane.sorts`), and books have its index for a search. A series' or an author's lane (every
    // entry links both) walked the title index over every book: 0.15-0.57 s; they are found by index now (an author's
    // by `authors @> ARRAY[name]`, which the GIN index answers, rather than `name = ANY(authors)`).
    Migration(
        version: 28,
        name: "Genre lanes in every order by index",
        sql: """
            CREATE TABLE genre_lane_books (
                genre text NOT NULL,
                book_id uuid NOT NULL,
                sort_title text NOT NULL,
                author_key text NOT NULL,
                added_at timestamptz NOT NULL,
                rating float8 NOT NULL,
                popularity integer NOT NULL,
                word_count integer NOT NULL,
                available boolean NOT NULL,
                screen_reader_friendly boolean NOT NULL,
                declares_no_hazards boolean NOT NULL
            );
            -- The rows of one book: its sort keys as `SortKey.expression` computes them on books.
            CREATE FUNCTION genre_lane_books_of(b books) RETURNS SETOF genre_lane_books LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                SELECT DISTINCT genre, b.id, b.sort_title, lower(b.sort_author), b.added_at, coalesce(b.rating_average, 0),
                    b.popularity, b.word_count, b.open_access OR b.copies_available > 0, b.screen_reader_friendly,
                    b.declares_no_hazards
                FROM unnest(b.genres) genre
                $$;
            INSERT INTO genre_lane_books SELECT g.* FROM books b, genre_lane_books_of(b) g WHERE b.withdrawn_at IS NULL;
            ALTER TABLE genre_lane_books ADD PRIMARY KEY (book_id, genre);
            -- With `available` (the availability facet) so that a page is read from the index alone.
            CREATE INDEX genre_lane_books_title ON genre_lane_books (genre, sort_title, book_id) INCLUDE (available);
            CREATE INDEX genre_lane_books_author ON genre_lane_books (genre, author_key, book_id) INCLUDE (available);
            CREATE INDEX genre_lane_books_added ON genre_lane_books (genre, added_at, book_id) INCLUDE (available);
            CREATE INDEX genre_lane_books_rating ON genre_lane_books (genre, rating, book_id) INCLUDE (available);
            CREATE INDEX genre_lane_books_popularity ON genre_lane_books (genre, popularity, book_id) INCLUDE (available);
            CREATE INDEX genre_lane_books_length ON genre_lane_books (genre, word_count, book_id) INCLUDE (available);
            CREATE INDEX genre_lane_books_screen_reader ON genre_lane_books (genre, book_id) WHERE screen_reader_friendly;
            CREATE INDEX genre_lane_books_no_hazards ON genre_lane_books (genre, book_id) WHERE declares_no_hazards;
            ANALYZE genre_lane_books;
            CREATE FUNCTION keep_genre_lane_books() RETURNS trigger LANGUAGE plpgsql AS $$
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
            -- A page without an accessibility facet (`FeedPostgresRepository.GenreLanePage`): the ids and cursor values
            -- of `size` books of `lane_genre` in `lane_key`'s order after the cursor (none: from the start), planned once
            -- per session (a lane page's statement was planned at every request: 40 % of its time in PostgreSQL). One
            -- static statement per order, direction and start, each using its index; written by the loop below.
            DO $$
            DECLARE
                body text := '';
                key record;
            BEGIN
                FOR key IN SELECT * FROM (VALUES ('sort_title', 'text'), ('author_key', 'text'), ('added_at', 'timestamptz'),
                    ('rating', 'float8'), ('popularity', 'int'), ('word_count', 'int')) k (name, type)
                LOOP
                    body := body || format($branch$
                        IF lane_key = %1$L THEN
                            IF after_id IS NULL AND NOT descending THEN
                                RETURN QUERY SELECT g.book_id, g.%1$I::text FROM genre_lane_books g
                                    WHERE g.genre = lane_genre AND (g.available OR NOT available_only) AND NOT (g.book_id = ANY(hidden))
                                    ORDER BY g.%1$I, g.book_id LIMIT size;
                            ELSIF after_id IS NULL THEN
                                RETURN QUERY SELECT g.book_id, g.%1$I::text FROM genre_lane_books g
                                    WHERE g.genre = lane_genre AND (g.available OR NOT available_only) AND NOT (g.book_id = ANY(hidden))
                                    ORDER BY g.%1$I DESC, g.book_id DESC LIMIT size;
                            ELSIF NOT descending THEN
                                RETURN QUERY SELECT g.book_id, g.%1$I::text FROM genre_lane_books g
                                    WHERE g.genre = lane_genre AND (g.available OR NOT available_only) AND NOT (g.book_id = ANY(hidden))
                                        AND (g.%1$I, g.book_id) > (after_value::%2$s, after_id)
                                    ORDER BY g.%1$I, g.book_id LIMIT size;
                            ELSE
                                RETURN QUERY SELECT g.book_id, g.%1$I::text FROM genre_lane_books g
                                    WHERE g.genre = lane_genre AND (g.available OR NOT available_only) AND NOT (g.book_id = ANY(hidden))
                                        AND (g.%1$I, g.book_id) < (after_value::%2$s, after_id)
                                    ORDER BY g.%1$I DESC, g.book_id DESC LIMIT size;
                            END IF;
                            RETURN;
                        END IF;$branch$, key.name, key.type);
                END LOOP;
                EXECUTE format($function$
                    CREATE FUNCTION genre_lane_page(lane_genre text, lane_key text, descending boolean, available_only boolean,
                            hidden uuid[], after_value text, after_id uuid, size int)
                        RETURNS TABLE (book_id uuid, cursor_value text)
                        LANGUAGE plpgsql STABLE ROWS 50 SET plan_cache_mode = force_generic_plan AS $body$
                        BEGIN %s
                            RAISE EXCEPTION 'genre_lane_books has no lane order %%', lane_key;
                        END
                        $body$
                    $function$, body);
            END
            $$;
            CREATE TRIGGER books_genre_lane_books AFTER INSERT OR DELETE ON books
                FOR EACH ROW EXECUTE FUNCTION keep_genre_lane_books();
            -- Only when a kept value changes: a borrow's figures update (every borrow and return) mostly changes none.
            CREATE TRIGGER books_genre_lane_books_update AFTER UPDATE ON books FOR EACH ROW
                WHEN (OLD.genres IS DISTINCT FROM NEW.genres OR (OLD.withdrawn_at IS NULL) <> (NEW.withdrawn_at IS NULL)
                    OR OLD.sort_title <> NEW.sort_title OR OLD.sort_author <> NEW.sort_author OR OLD.added_at <> NEW.added_at
                    OR coalesce(OLD.rating_average, 0) <> coalesce(NEW.rating_average, 0) OR OLD.popularity <> NEW.popularity
                    OR OLD.word_count <> NEW.word_count
                    OR (OLD.open_access OR OLD.copies_available > 0) <> (NEW.open_access OR NEW.copies_available > 0)
                    OR OLD.screen_reader_friendly <> NEW.screen_reader_friendly
                    OR OLD.declares_no_hazards <> NEW.declares_no_hazards)
                EXECUTE FUNCTION keep_genre_lane_books();
            CREATE INDEX books_series_order ON books ((coalesce(series_position, 1e9)), id);
            CREATE INDEX books_series ON books (series, (coalesce(series_position, 1e9)), id) WHERE series IS NOT NULL;
            CREATE INDEX books_authors ON books USING gin (authors);
            DROP INDEX IF EXISTS books_genre_fiction_title;
            DROP INDEX IF EXISTS books_genre_mystery_title;
            DROP INDEX IF EXISTS books_genre_science_fiction_title;
            DROP INDEX IF EXISTS books_genre_romance_title;
            DROP INDEX IF EXISTS books_genre_horror_title;
            DROP INDEX IF EXISTS books_genre_poetry_title;
            DROP INDEX IF EXISTS books_genre_drama_title;
            DROP INDEX IF EXISTS books_genre_history_title;
            DROP INDEX IF EXISTS books_genre_biography_title;
            DROP INDEX IF EXISTS books_genre_science_title;
            DROP INDEX IF EXISTS books_genre_philosophy_title;
            DROP INDEX IF EXISTS books_genre_children_title;
            DROP INDEX IF EXISTS books_genre_adventure_title;
            DROP INDEX IF EXISTS books_genre_reference_title;
            DROP INDEX IF EXISTS books_genre_nonfiction_title;
            """
    ),
    // The featured and staff-picks lanes had an index in date order only (migration 2), and a lane with an accessibility
    // facet none in any order (migration 27 indexes the facet's books by id, for a rare facet read whole and sorted): in
    // any other order a page walked that order's index over every book and skipped the others. Page 1 of featured books
    // by rating read ~42,000 rows (58 ms at a million books with 0.5 % featured; the fewer featured, the more rows), the
    // newest books that declare no hazards ~32,000 (40 ms) where the newest 30,000 declared nothing. The lanes' and the
    // facets' books have an index of their own in every lane order now: nothing to write for a book outside them.
    Migration(
        version: 29,
        name: "Featured, staff-picks and accessibility facets indexed in every lane order",
        sql: """
            CREATE INDEX books_featured_title ON books (sort_title, id) WHERE featured;
            CREATE INDEX books_featured_author ON books ((lower(sort_author)), id) WHERE featured;
            CREATE INDEX books_featured_rating ON books ((coalesce(rating_average, 0)), id) WHERE featured;
            CREATE INDEX books_featured_popularity ON books (popularity, id) WHERE featured;
            CREATE INDEX books_featured_length ON books (word_count, id) WHERE featured;
            CREATE INDEX books_staff_picks_title ON books (sort_title, id) WHERE staff_pick;
            CREATE INDEX books_staff_picks_author ON books ((lower(sort_author)), id) WHERE staff_pick;
            CREATE INDEX books_staff_picks_rating ON books ((coalesce(rating_average, 0)), id) WHERE staff_pick;
            CREATE INDEX books_staff_picks_popularity ON books (popularity, id) WHERE staff_pick;
            CREATE INDEX books_staff_picks_length ON books (word_count, id) WHERE staff_pick;
            CREATE INDEX books_screen_reader_title ON books (sort_title, id) WHERE screen_reader_friendly AND withdrawn_at IS NULL;
            CREATE INDEX books_screen_reader_author ON books ((lower(sort_author)), id) WHERE screen_reader_friendly AND withdrawn_at IS NULL;
            CREATE INDEX books_screen_reader_added ON books (added_at, id) WHERE screen_reader_friendly AND withdrawn_at IS NULL;
            CREATE INDEX books_screen_reader_rating ON books ((coalesce(rating_average, 0)), id) WHERE screen_reader_friendly AND withdrawn_at IS NULL;
            CREATE INDEX books_screen_reader_popularity ON books (popularity, id) WHERE screen_reader_friendly AND withdrawn_at IS NULL;
            CREATE INDEX books_screen_reader_length ON books (word_count, id) WHERE screen_reader_friendly AND withdrawn_at IS NULL;
            CREATE INDEX books_no_hazards_title ON books (sort_title, id) WHERE declares_no_hazards AND withdrawn_at IS NULL;
            CREATE INDEX books_no_hazards_author ON books ((lower(sort_author)), id) WHERE declares_no_hazards AND withdrawn_at IS NULL;
            CREATE INDEX books_no_hazards_added ON books (added_at, id) WHERE declares_no_hazards AND withdrawn_at IS NULL;
            CREATE INDEX books_no_hazards_rating ON books ((coalesce(rating_average, 0)), id) WHERE declares_no_hazards AND withdrawn_at IS NULL;
            CREATE INDEX books_no_hazards_popularity ON books (popularity, id) WHERE declares_no_hazards AND withdrawn_at IS NULL;
            CREATE INDEX books_no_hazards_length ON books (word_count, id) WHERE declares_no_hazards AND withdrawn_at IS NULL;
            """
    ),
    // A genre page with an accessibility facet was the general statement, planned at every request and reading the
    // order's index with each row's facet from the table (or the facet's books of the genre, sorted): PostgreSQL's
    // share of such a page was 1.1 ms at a million books against 0.44 ms without the facet. Each facet has the genre
    // lanes' indexes in every order, of its books only, and `genre_lane_page` an overload taking the facet (the column
    // of `AccessibilityFacet.condition`, or '' for none) with one static statement per order, direction, start and
    // facet, each reading its index (written by the loop below). The eight-argument function stays for a replica of the
    // previous version during a rolling upgrade.
    Migration(
        version: 30,
        name: "Genre lanes with an accessibility facet in every order by index",
        sql: """
            DO $$
            DECLARE
                key record;
                facet record;
                body text := '';
                facet_condition text;
                -- %1$I the order's column, %2$s the facet's condition, %3$s the cursor's, %4$s the direction.
                statement text := $statement$
                                    RETURN QUERY SELECT g.book_id, g.%1$I::text FROM genre_lane_books g
                                        WHERE g.genre = lane_genre%2$s AND (g.available OR NOT available_only) AND NOT (g.book_id = ANY(hidden))%3$s
                                        ORDER BY g.%1$I%4$s, g.book_id%4$s LIMIT size;$statement$;
            BEGIN
                FOR facet IN SELECT * FROM (VALUES ('', ''), ('screen_reader', 'screen_reader_friendly'), ('no_hazards', 'declares_no_hazards'))
                    f (name, flag)
                LOOP
                    facet_condition := CASE WHEN facet.flag = '' THEN '' ELSE format(' AND g.%I', facet.flag) END;
                    FOR key IN SELECT * FROM (VALUES ('title', 'sort_title', 'text'), ('author', 'author_key', 'text'),
                        ('added', 'added_at', 'timestamptz'), ('rating', 'rating', 'float8'), ('popularity', 'popularity', 'int'),
                        ('length', 'word_count', 'int')) k (name, column_name, type)
                    LOOP
                        -- The facet's books in this order (without a facet, migration 28's index).
                        IF facet.flag <> '' THEN
                            EXECUTE format('CREATE INDEX %I ON genre_lane_books (genre, %I, book_id) INCLUDE (available) WHERE %I',
                                'genre_lane_books_' || facet.name || '_' || key.name, key.column_name, facet.flag);
                        END IF;
                        -- Its four statements: the first page and after a cursor, each way up, from one template.
                        body := body || format($branch$
                            IF lane_key = %1$L AND facet = %2$L THEN
                                IF after_id IS NULL AND NOT descending THEN %3$s
                                ELSIF after_id IS NULL THEN %4$s
                                ELSIF NOT descending THEN %5$s
                                ELSE %6$s
                                END IF;
                                RETURN;
                            END IF;$branch$, key.column_name, facet.flag,
                            format(statement, key.column_name, facet_condition, '', ''),
                            format(statement, key.column_name, facet_condition, '', ' DESC'),
                            format(statement, key.column_name, facet_condition,
                                format(' AND (g.%I, g.book_id) > (after_value::%s, after_id)', key.column_name, key.type), ''),
                            format(statement, key.column_name, facet_condition,
                                format(' AND (g.%I, g.book_id) < (after_value::%s, after_id)', key.column_name, key.type), ' DESC'));
                    END LOOP;
                END LOOP;
                EXECUTE format($function$
                    CREATE FUNCTION genre_lane_page(lane_genre text, lane_key text, facet text, descending boolean, available_only boolean,
                            hidden uuid[], after_value text, after_id uuid, size int)
                        RETURNS TABLE (book_id uuid, cursor_value text)
                        LANGUAGE plpgsql STABLE ROWS 50 SET plan_cache_mode = force_generic_plan AS $body$
                        BEGIN %s
                            RAISE EXCEPTION 'genre_lane_books has no lane order %% with facet %%', lane_key, facet;
                        END
                        $body$
                    $function$, body);
            END
            $$;
            ANALYZE genre_lane_books;
            """
    ),
    // A fixed lane's page (new, featured, staff picks, popular, available) was the general statement, sent unnamed and
    // planned at every request: ~100 us of PostgreSQL's ~250 a page at a million books (`pgbench -M simple` against
    // `-M prepared` of one page's statement, 7,700 against 12,300 runs a second with two clients). `fixed_lane_page` has
    // one static statement per lane, order, facet, direction and start (written by the loop below, the lanes' conditions
    // as `Lane.fixed` has them, the orders' expressions as `SortKey.expression`), each planned once a session from its
    // index; it returns the books' rows, so that the caller selects an entry's columns from them as from `books` (a
    // function that returned ids joined back to `books` made 8,700 a second, its rows 10,500). A change to a fixed lane's
    // condition needs a migration that replaces the function: `FixedLanePageTests` compares every lane, order and facet
    // with the general statement.
    Migration(
        version: 31,
        name: "Fixed lanes' pages planned once per session",
        sql: """
            DO $$
            DECLARE
                lane record;
                key record;
                facet record;
                lane_body text;
                key_body text;
                body text := '';
                facet_condition text;
                -- %1$s the lane's condition, %2$s the facet's, %3$s the cursor's, %4$s the order's expression, %5$s the direction.
                statement text := $statement$
                                    RETURN QUERY SELECT b.* FROM books b
                                        WHERE b.withdrawn_at IS NULL AND %1$s%2$s AND (b.open_access OR b.copies_available > 0 OR NOT available_only)
                                            AND NOT (b.id = ANY(hidden))%3$s
                                        ORDER BY %4$s%5$s, b.id%5$s LIMIT size;$statement$;
            BEGIN
                FOR lane IN SELECT * FROM (VALUES ('new', 'true'), ('featured', 'b.featured'), ('staff-picks', 'b.staff_pick'),
                    ('popular', 'b.popularity > 0'), ('available', '(b.open_access OR b.copies_available > 0)')) l (slug, condition)
                LOOP
                    lane_body := '';
                    FOR key IN SELECT * FROM (VALUES ('title', 'b.sort_title', 'text'), ('author', 'lower(b.sort_author)', 'text'),
                        ('added', 'b.added_at', 'timestamptz'), ('rating', 'coalesce(b.rating_average, 0)', 'float8'),
                        ('popularity', 'b.popularity', 'int'), ('length', 'b.word_count', 'int')) k (name, expression, type)
                    LOOP
                        key_body := '';
                        FOR facet IN SELECT * FROM (VALUES (''), ('screen_reader_friendly'), ('declares_no_hazards')) f (flag) LOOP
                            facet_condition := CASE WHEN facet.flag = '' THEN '' ELSE format(' AND b.%I', facet.flag) END;
                            -- Its four statements: the first page and after a cursor, each way up, from one template.
                            key_body := key_body || format($branch$
                                    IF facet = %1$L THEN
                                        IF after_id IS NULL AND NOT descending THEN %2$s
                                        ELSIF after_id IS NULL THEN %3$s
                                        ELSIF NOT descending THEN %4$s
                                        ELSE %5$s
                                        END IF;
                                        RETURN;
                                    END IF;$branch$, facet.flag,
                                format(statement, lane.condition, facet_condition, '', key.expression, ''),
                                format(statement, lane.condition, facet_condition, '', key.expression, ' DESC'),
                                format(statement, lane.condition, facet_condition,
                                    format(' AND (%s, b.id) > (after_value::%s, after_id)', key.expression, key.type), key.expression, ''),
                                format(statement, lane.condition, facet_condition,
                                    format(' AND (%s, b.id) < (after_value::%s, after_id)', key.expression, key.type), key.expression, ' DESC'));
                        END LOOP;
                        lane_body := lane_body || format($key$
                                IF sort_key = %1$L THEN %2$s
                                END IF;$key$, key.name, key_body);
                    END LOOP;
                    body := body || format($lane$
                        IF lane_slug = %1$L THEN %2$s
                        END IF;$lane$, lane.slug, lane_body);
                END LOOP;
                EXECUTE format($function$
                    CREATE FUNCTION fixed_lane_page(lane_slug text, sort_key text, facet text, descending boolean, available_only boolean,
                            hidden uuid[], after_value text, after_id uuid, size int)
                        RETURNS SETOF books
                        LANGUAGE plpgsql STABLE ROWS 50 SET plan_cache_mode = force_generic_plan AS $body$
                        BEGIN %s
                            RAISE EXCEPTION 'no fixed lane %% in order %% with facet %%', lane_slug, sort_key, facet;
                        END
                        $body$
                    $function$, body);
            END
            $$;
            """
    ),
    // A common word's page (`search_postings_page`, three quarters of the bench's random words) checked each of its 1,000
    // candidates against the hidden books and the cursor, which a first page without hidden books (most searches) does
    // not need: a statement of its own for that page. `pgbench -M prepared -c 2` of the function for the bench's words at
    // a million books: 6,510-6,690 calls a second before, 7,620-7,880 after. The others are as before.
    Migration(
        version: 32,
        name: "A common word's first page without per-candidate conditions",
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
    ),
]
