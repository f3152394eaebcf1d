import PostgresSupport

extension PatronMigration {
    static let reading = Migration(
        version: 3,
        name: "reading",
        sql: """
            CREATE TABLE bookmarks (
                id uuid PRIMARY KEY,
                patron_id uuid NOT NULL REFERENCES patrons ON DELETE CASCADE,
                book_id uuid NOT NULL,
                locator jsonb NOT NULL,
                locator_key text NOT NULL,
                chapter text,
                snippet text,
                device text,
                created_at timestamptz NOT NULL DEFAULT now(),
                UNIQUE (patron_id, book_id, locator_key)
            );
            CREATE TABLE positions (
                patron_id uuid NOT NULL REFERENCES patrons ON DELETE CASCADE,
                book_id uuid NOT NULL,
                locator jsonb NOT NULL,
                written_at timestamptz NOT NULL,
                device text NOT NULL DEFAULT '',
                PRIMARY KEY (patron_id, book_id)
            );
            CREATE TABLE ratings (
                patron_id uuid NOT NULL REFERENCES patrons ON DELETE CASCADE,
                book_id uuid NOT NULL,
                stars integer NOT NULL CHECK (stars BETWEEN 1 AND 5),
                updated_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (patron_id, book_id)
            );
            CREATE INDEX ratings_book ON ratings (book_id);
            CREATE TABLE favorites (
                patron_id uuid NOT NULL REFERENCES patrons ON DELETE CASCADE,
                book_id uuid NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (patron_id, book_id)
            );
            CREATE TABLE feedback (
                id uuid PRIMARY KEY,
                patron_id uuid REFERENCES patrons ON DELETE CASCADE,
                message text NOT NULL,
                email text,
                book_id uuid,
                kind text NOT NULL,
                client_address text,
                created_at timestamptz NOT NULL DEFAULT now()
            );
            CREATE INDEX feedback_created ON feedback (created_at DESC, id);
            """
    )
}
