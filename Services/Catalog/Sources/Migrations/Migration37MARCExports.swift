import PostgresSupport

extension CatalogMigration {
    // MARC export files kept for staff to download (built in the background by one replica, with progress; the file is
    // a blob like a book's, which the orphan sweep keeps while a row names it).
    static let marcExports = Migration(
        version: 37,
        name: "MARC exports",
        sql: """
            CREATE TABLE marc_exports (
                id uuid PRIMARY KEY,
                format text NOT NULL CHECK (format IN ('marcxml', 'iso2709')),
                since timestamptz,
                status text NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'running', 'done', 'failed')),
                records integer NOT NULL DEFAULT 0,
                total integer NOT NULL DEFAULT 0,
                blob_sha256 text,
                size bigint,
                error text,
                created_by text NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                started_at timestamptz,
                finished_at timestamptz,
                heartbeat_at timestamptz
            );
            CREATE INDEX marc_exports_blob ON marc_exports (blob_sha256) WHERE blob_sha256 IS NOT NULL;
            """
    )
}
