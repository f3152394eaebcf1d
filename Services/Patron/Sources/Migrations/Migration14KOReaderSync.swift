import PostgresSupport

extension PatronMigration {
    // KOReader's sync server (`/kosync`): per-device sync keys (a user name and a key shown once, kept as the SHA-256
    // of the MD5 KOReader sends), KOReader's name for each book's file (catalog's licence carries it), KOReader's own
    // fields beside the web reader's locator in the one position per patron and book, and progress KOReader sends
    // for files the library does not know (kept for the patron, returned to KOReader).
    static let koreaderSync = Migration(
        version: 14,
        name: "KOReader sync",
        sql: """
            CREATE TABLE sync_keys (
                id uuid PRIMARY KEY,
                patron_id uuid NOT NULL REFERENCES patrons ON DELETE CASCADE,
                username text NOT NULL UNIQUE,
                key_hash bytea NOT NULL,
                device text NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                last_used_at timestamptz
            );
            CREATE INDEX sync_keys_by_patron ON sync_keys (patron_id, created_at);
            ALTER TABLE licenses ADD COLUMN koreader_digest text;
            CREATE INDEX licenses_by_koreader_digest ON licenses (koreader_digest) WHERE koreader_digest IS NOT NULL;
            ALTER TABLE positions ADD COLUMN percentage double precision, ADD COLUMN koreader_progress text, ADD COLUMN device_id text;
            CREATE TABLE koreader_documents (
                patron_id uuid NOT NULL REFERENCES patrons ON DELETE CASCADE,
                document text NOT NULL,
                progress text NOT NULL,
                percentage double precision NOT NULL,
                device text NOT NULL,
                device_id text,
                written_at timestamptz NOT NULL,
                PRIMARY KEY (patron_id, document)
            );
            """
    )
}
