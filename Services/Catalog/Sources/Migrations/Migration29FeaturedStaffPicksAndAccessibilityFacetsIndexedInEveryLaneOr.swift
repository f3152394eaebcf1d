import PostgresSupport

extension CatalogMigration {
    // The featured and staff-picks lanes had an index in date order only (migration 2), and a lane with an accessibility
    // facet none in any order (migration 27 indexes the facet's books by id, for a rare facet read whole and sorted): in
    // any other order a page walked that order's index over every book and skipped the others. Page 1 of featured books
    // by rating read ~42,000 rows (58 ms at a million books with 0.5 % featured; the fewer featured, the more rows), the
    // newest books that declare no hazards ~32,000 (40 ms) where the newest 30,000 declared nothing. The lanes' and the
    // facets' books have an index of their own in every lane order now: nothing to write for a book outside them.
    static let featuredStaffPicksAndAccessibilityFacetsIndexedInEveryLaneOrder = Migration(
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
    )
}
