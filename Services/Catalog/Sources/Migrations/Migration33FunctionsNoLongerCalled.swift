import PostgresSupport

extension CatalogMigration {
    // Migration 25's counts-and-page function, replaced by migration 26's `search_word_page`, and migration 28's genre
    // lane page without a facet, kept by migration 30 for replicas of the version before it.
    static let functionsNoLongerCalled = Migration(
        version: 33,
        name: "Functions no longer called",
        sql: """
            DROP FUNCTION IF EXISTS search_word_counts_and_page(text, boolean, boolean, int, bigint, real, uuid, bigint, bigint, uuid[]);
            DROP FUNCTION IF EXISTS genre_lane_page(text, text, boolean, boolean, uuid[], text, uuid, int);
            """
    )
}
