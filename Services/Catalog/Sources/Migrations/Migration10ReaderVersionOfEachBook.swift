import PostgresSupport

extension CatalogMigration {
    // Which version of the EPUB reader last derived a book's metadata (`ParsedBook.readerVersion`): books stored by an
    // older one are read again from their stored EPUB by `catalog reread-metadata`.
    static let readerVersionOfEachBook = Migration(
        version: 10,
        name: "reader version of each book",
        sql: """
            ALTER TABLE books ADD COLUMN reader_version smallint NOT NULL DEFAULT 0;
            """
    )
}
