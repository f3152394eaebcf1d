import PostgresSupport

extension CatalogMigration {
    // A genre page with an accessibility facet was the general statement, planned at every request and reading the
    // order's index with each row's facet from the table (or the facet's books of the genre, sorted): PostgreSQL's
    // share of such a page was 1.1 ms at a million books against 0.44 ms without the facet. Each facet has the genre
    // lanes' indexes in every order, of its books only, and `genre_lane_page` an overload taking the facet (the column
    // of `AccessibilityFacet.condition`, or '' for none) with one static statement per order, direction, start and
    // facet, each reading its index (now `CatalogFunction.genreLanePage`). The eight-argument function stayed for a
    // replica of the previous version during a rolling upgrade (dropped by migration 33).
    static let genreLanesWithAnAccessibilityFacetInEveryOrderByIndex = Migration(
        version: 30,
        name: "Genre lanes with an accessibility facet in every order by index",
        sql: """
            CREATE INDEX genre_lane_books_screen_reader_title ON genre_lane_books (genre, sort_title, book_id) INCLUDE (available) WHERE screen_reader_friendly;
            CREATE INDEX genre_lane_books_screen_reader_author ON genre_lane_books (genre, author_key, book_id) INCLUDE (available) WHERE screen_reader_friendly;
            CREATE INDEX genre_lane_books_screen_reader_added ON genre_lane_books (genre, added_at, book_id) INCLUDE (available) WHERE screen_reader_friendly;
            CREATE INDEX genre_lane_books_screen_reader_rating ON genre_lane_books (genre, rating, book_id) INCLUDE (available) WHERE screen_reader_friendly;
            CREATE INDEX genre_lane_books_screen_reader_popularity ON genre_lane_books (genre, popularity, book_id) INCLUDE (available) WHERE screen_reader_friendly;
            CREATE INDEX genre_lane_books_screen_reader_length ON genre_lane_books (genre, word_count, book_id) INCLUDE (available) WHERE screen_reader_friendly;
            CREATE INDEX genre_lane_books_no_hazards_title ON genre_lane_books (genre, sort_title, book_id) INCLUDE (available) WHERE declares_no_hazards;
            CREATE INDEX genre_lane_books_no_hazards_author ON genre_lane_books (genre, author_key, book_id) INCLUDE (available) WHERE declares_no_hazards;
            CREATE INDEX genre_lane_books_no_hazards_added ON genre_lane_books (genre, added_at, book_id) INCLUDE (available) WHERE declares_no_hazards;
            CREATE INDEX genre_lane_books_no_hazards_rating ON genre_lane_books (genre, rating, book_id) INCLUDE (available) WHERE declares_no_hazards;
            CREATE INDEX genre_lane_books_no_hazards_popularity ON genre_lane_books (genre, popularity, book_id) INCLUDE (available) WHERE declares_no_hazards;
            CREATE INDEX genre_lane_books_no_hazards_length ON genre_lane_books (genre, word_count, book_id) INCLUDE (available) WHERE declares_no_hazards;
            """
    )
}
