import PostgresSupport

extension CatalogMigration {
    // Every borrow and return brings a book's figures, and `checkouts` had an index (the popularity order), so no
    // figures update was HOT: each put a new entry into every index of books (0.42 ms, a quarter of PostgreSQL's time
    // under a borrowing storm). The order now reads `popularity`, which follows `checkouts` exactly below 20 and then
    // within a tenth (`ApplyFigures`), so most updates change no indexed column; pages keep room for their new versions.
    static let popularityApartFromCheckoutsFiguresUpdatedInPlace = Migration(
        version: 15,
        name: "Popularity apart from checkouts, figures updated in place",
        sql: """
            ALTER TABLE books ADD COLUMN IF NOT EXISTS popularity integer NOT NULL DEFAULT 0;
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
    )
}
