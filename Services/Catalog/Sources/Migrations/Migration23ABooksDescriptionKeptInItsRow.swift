import PostgresSupport

extension CatalogMigration {
    // Every feed entry sends its book's description, and PostgreSQL had moved every description out of the row into
    // TOAST (the row's other long values, kept in it, left it no room): each entry of a page was one more index probe
    // and heap read of `books`' TOAST table, a tenth of PostgreSQL's time on a search page at a million books. Kept in
    // the row (compressed) unless nothing else can make room, the detail-only tables of contents and resources go
    // out instead. Rows written before keep their layout until rewritten: `VACUUM FULL books` (README) moves them in.
    static let aBooksDescriptionKeptInItsRow = Migration(
        version: 23,
        name: "A book's description kept in its row",
        sql: """
            ALTER TABLE books ALTER COLUMN description SET STORAGE MAIN;
            """
    )
}
