import PostgresSupport

extension CatalogMigration {
    // Books without a cover get one drawn (GeneratedCover); a real cover replaces a drawn one.
    static let whereCoversComeFrom = Migration(
        version: 8,
        name: "where covers come from",
        sql: """
            ALTER TABLE books ADD COLUMN cover_source text CHECK (cover_source IN ('epub', 'generated', 'uploaded'));
            """
    )
}
