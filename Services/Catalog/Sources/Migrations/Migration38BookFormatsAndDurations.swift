import PostgresSupport

extension CatalogMigration {
    // Audiobooks and PDFs beside EPUBs (issue 69): each book's format, and an audiobook's length in seconds. The
    // format facet's few audiobooks and PDFs are found by partial indexes in every lane order; EPUBs, most of a
    // catalogue, are read through the lanes' own indexes.
    static let bookFormatsAndDurations = Migration(
        version: 38,
        name: "book formats and durations",
        sql: """
            ALTER TABLE books ADD COLUMN format text NOT NULL DEFAULT 'epub' CHECK (format IN ('epub', 'pdf', 'audiobook'));
            ALTER TABLE books ADD COLUMN duration double precision CHECK (duration IS NULL OR duration > 0);
            CREATE INDEX books_audiobook_title ON books (sort_title, id) WHERE format = 'audiobook';
            CREATE INDEX books_audiobook_added ON books (added_at, id) WHERE format = 'audiobook';
            CREATE INDEX books_pdf_title ON books (sort_title, id) WHERE format = 'pdf';
            CREATE INDEX books_pdf_added ON books (added_at, id) WHERE format = 'pdf';
            """
    )
}
