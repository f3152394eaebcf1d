import PostgresSupport

extension CatalogMigration {
    // Collections of open-access books published as OPDS feeds, imported by walking them: each collection's last run
    // (its progress doubles as the runner's heartbeat: a run whose replica died is taken up again), and which book each
    // of its entries became, so that a later run adds only new entries and withdraws the books gone from the feed.
    static let opdsImport = Migration(
        version: 36,
        name: "OPDS import",
        sql: """
            CREATE TABLE opds_collections (
                id uuid PRIMARY KEY,
                name text NOT NULL,
                url text NOT NULL,
                username text,
                password text,
                created_at timestamptz NOT NULL DEFAULT now(),
                run_status text NOT NULL DEFAULT 'never' CHECK (run_status IN ('never', 'waiting', 'running', 'done', 'failed')),
                run_requested_at timestamptz,
                run_started_at timestamptz,
                run_finished_at timestamptz,
                run_heartbeat_at timestamptz,
                pages_read integer NOT NULL DEFAULT 0,
                entries_seen integer NOT NULL DEFAULT 0,
                books_added integer NOT NULL DEFAULT 0,
                books_withdrawn integer NOT NULL DEFAULT 0,
                errors text[] NOT NULL DEFAULT '{}'
            );
            CREATE TABLE opds_collection_books (
                collection_id uuid NOT NULL REFERENCES opds_collections ON DELETE CASCADE,
                entry_id text NOT NULL,
                book_id uuid NOT NULL REFERENCES books,
                PRIMARY KEY (collection_id, entry_id)
            );
            CREATE INDEX opds_collection_books_book ON opds_collection_books (book_id);
            """
    )
}
