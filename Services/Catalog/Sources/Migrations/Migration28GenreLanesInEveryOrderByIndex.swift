import PostgresSupport

extension CatalogMigration {
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
    static let genreLanesInEveryOrderByIndex = Migration(
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
    )
}
