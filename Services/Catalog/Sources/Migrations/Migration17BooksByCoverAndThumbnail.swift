import PostgresSupport

extension CatalogMigration {
    // The blob sweeper asks, for each blob on disk, whether a book uses it as its file, cover or thumbnail; only the file
    // had an index, so every batch of 1,000 blobs read the whole table twice (2.4 s at a million books: hours a sweep for
    // a million books' files and covers).
    static let booksByCoverAndThumbnail = Migration(
        version: 17,
        name: "Books by cover and thumbnail",
        sql: """
            CREATE INDEX books_cover_sha256 ON books (cover_sha256) WHERE cover_sha256 IS NOT NULL;
            CREATE INDEX books_thumbnail_sha256 ON books (thumbnail_sha256) WHERE thumbnail_sha256 IS NOT NULL;
            """
    )
}
