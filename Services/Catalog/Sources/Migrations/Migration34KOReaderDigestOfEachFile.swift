import PostgresSupport

extension CatalogMigration {
    // KOReader's name for each book's EPUB (`KOReaderDigest`), by which its sync plugin's progress records name a
    // book; books stored before it are given theirs by `catalog reread-metadata` (reader version 3).
    static let koreaderDigestOfEachFile = Migration(
        version: 34,
        name: "KOReader digest of each file",
        sql: """
            ALTER TABLE books ADD COLUMN koreader_digest text;
            CREATE INDEX books_by_koreader_digest ON books (koreader_digest) WHERE koreader_digest IS NOT NULL;
            """
    )
}
