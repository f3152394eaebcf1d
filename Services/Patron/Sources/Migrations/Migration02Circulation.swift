import PostgresSupport

extension PatronMigration {
    static let circulation = Migration(
        version: 2,
        name: "circulation",
        sql: """
            CREATE TABLE licenses (
                book_id uuid PRIMARY KEY,
                copies integer NOT NULL CHECK (copies >= 0),
                open_access boolean NOT NULL,
                withdrawn boolean NOT NULL DEFAULT false,
                title text NOT NULL,
                authors jsonb NOT NULL,
                version bigint NOT NULL,
                checkouts integer NOT NULL DEFAULT 0,
                figures_version bigint NOT NULL DEFAULT 0
            );
            CREATE TABLE patron_books (
                patron_id uuid NOT NULL REFERENCES patrons ON DELETE CASCADE,
                book_id uuid NOT NULL,
                state text NOT NULL CHECK (state IN ('saved', 'waiting_for_loan', 'loan_offered', 'loan_offer_expired',
                    'not_downloaded', 'download_queued', 'downloading', 'download_failed', 'download_completed', 'opened', 'loan_expired')),
                hold_placed_at timestamptz,
                offer_expires_at timestamptz,
                loaned_at timestamptz,
                due_at timestamptz,
                updated_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (patron_id, book_id),
                CHECK ((state = 'waiting_for_loan') = (hold_placed_at IS NOT NULL AND offer_expires_at IS NULL AND due_at IS NULL)
                    OR state <> 'waiting_for_loan'),
                CHECK (state <> 'loan_offered' OR offer_expires_at IS NOT NULL),
                CHECK (state NOT IN ('not_downloaded', 'download_queued', 'downloading', 'download_failed', 'download_completed', 'opened')
                    OR due_at IS NOT NULL)
            );
            CREATE INDEX patron_books_queue ON patron_books (book_id, hold_placed_at, patron_id) WHERE state = 'waiting_for_loan';
            CREATE INDEX patron_books_book ON patron_books (book_id, state);
            CREATE INDEX patron_books_offers ON patron_books (offer_expires_at) WHERE state = 'loan_offered';
            CREATE INDEX patron_books_due ON patron_books (due_at) WHERE due_at IS NOT NULL;
            CREATE TABLE ignored_books (
                patron_id uuid NOT NULL REFERENCES patrons ON DELETE CASCADE,
                book_id uuid NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (patron_id, book_id)
            );
            CREATE TABLE loan_history (
                id bigserial PRIMARY KEY,
                patron_id uuid NOT NULL REFERENCES patrons ON DELETE CASCADE,
                book_id uuid NOT NULL,
                loaned_at timestamptz NOT NULL,
                ended_at timestamptz,
                end_reason text
            );
            CREATE INDEX loan_history_open ON loan_history (patron_id, book_id) WHERE ended_at IS NULL;
            CREATE TABLE notifications (
                id uuid PRIMARY KEY,
                patron_id uuid NOT NULL REFERENCES patrons ON DELETE CASCADE,
                book_id uuid NOT NULL,
                kind text NOT NULL,
                dedupe_key text NOT NULL UNIQUE,
                created_at timestamptz NOT NULL DEFAULT now(),
                read_at timestamptz
            );
            CREATE INDEX notifications_patron ON notifications (patron_id, created_at DESC);
            """ + "\n" + OutboxPostgresRepository.migrationSQL
    )
}
