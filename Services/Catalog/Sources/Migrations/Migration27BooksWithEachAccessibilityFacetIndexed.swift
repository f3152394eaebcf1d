import PostgresSupport

extension CatalogMigration {
    // A lane with an accessibility facet (`AccessibilityFacet.condition`) walked its sort's index and skipped every book
    // without the facet: when few books have it, every book (0.5 s a page at a million books with none). The books with
    // each facet are indexed on their own, so that a rare facet's matches are read from it and sorted; a common one
    // still follows the sort's index (the planner weighs the two by the facet's share).
    static let booksWithEachAccessibilityFacetIndexed = Migration(
        version: 27,
        name: "Books with each accessibility facet indexed",
        sql: """
            CREATE INDEX books_screen_reader_friendly ON books (id) WHERE screen_reader_friendly AND withdrawn_at IS NULL;
            CREATE INDEX books_declares_no_hazards ON books (id) WHERE declares_no_hazards AND withdrawn_at IS NULL;
            """
    )
}
