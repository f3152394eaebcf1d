import PostgresSupport

extension CatalogMigration {
    static let coverThumbnails = Migration(
        version: 3,
        name: "cover thumbnails",
        sql: """
            ALTER TABLE books ADD COLUMN thumbnail_sha256 text, ADD COLUMN thumbnail_type text;
            """
    )
}
