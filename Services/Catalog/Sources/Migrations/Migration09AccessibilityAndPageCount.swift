import PostgresSupport

extension CatalogMigration {
    // Accessibility metadata (Readium's accessibility object) with the two facts lanes and search filter on, and the
    // print page count from the page list. Books ingested before have none until they are ingested again.
    static let accessibilityAndPageCount = Migration(
        version: 9,
        name: "accessibility and page count",
        sql: """
            ALTER TABLE books ADD COLUMN accessibility jsonb,
                ADD COLUMN screen_reader_friendly boolean NOT NULL DEFAULT false,
                ADD COLUMN declares_no_hazards boolean NOT NULL DEFAULT false,
                ADD COLUMN page_count integer;
            """
    )
}
