import PostgresSupport
import ServiceSupport

/// The patron database schema, one migration per change. Never edit a shipped migration.
let patronMigrations: [Migration] = [
    Migration(
        version: 1,
        name: "patrons and sessions",
        sql: """
            CREATE TABLE patrons (
                id uuid PRIMARY KEY,
                barcode text NOT NULL UNIQUE,
                username text,
                email text,
                display_name text NOT NULL DEFAULT '',
                bio text NOT NULL DEFAULT '',
                secret_hash text NOT NULL,
                loan_limit integer NOT NULL,
                hold_limit integer NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                last_login_at timestamptz
            );
            CREATE UNIQUE INDEX patrons_username ON patrons (lower(username));
            CREATE UNIQUE INDEX patrons_email ON patrons (lower(email));
            CREATE TABLE sessions (
                id uuid PRIMARY KEY,
                patron_id uuid NOT NULL REFERENCES patrons ON DELETE CASCADE,
                created_at timestamptz NOT NULL DEFAULT now(),
                revoked_at timestamptz
            );
            CREATE TABLE refresh_tokens (
                token_hash text PRIMARY KEY,
                session_id uuid NOT NULL REFERENCES sessions ON DELETE CASCADE,
                expires_at timestamptz NOT NULL,
                used_at timestamptz
            );
            CREATE TABLE login_throttle (
                key text PRIMARY KEY,
                failures integer NOT NULL,
                blocked_until timestamptz,
                updated_at timestamptz NOT NULL DEFAULT now()
            );
            CREATE TABLE settings (
                patron_id uuid PRIMARY KEY REFERENCES patrons ON DELETE CASCADE,
                settings jsonb NOT NULL
            );
            """
    ),
    Migration(
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
    ),
    Migration(
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
    ),
    Migration(
        version: 4,
        name: "covers on My books",
        sql: """
            ALTER TABLE licenses ADD COLUMN has_cover boolean;
            """
    ),
    Migration(
        version: 5,
        name: "sign-in throttling by login, pair and address",
        sql: """
            DROP TABLE login_throttle;
            CREATE TABLE sign_in_failures (
                key text PRIMARY KEY,
                failures integer NOT NULL DEFAULT 0,
                last_failure_at timestamptz NOT NULL DEFAULT now(),
                window_started_at timestamptz NOT NULL DEFAULT now()
            );
            CREATE TABLE sign_in_addresses (
                login text NOT NULL,
                address text NOT NULL,
                signed_in_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (login, address)
            );
            """
    ),
    // Catalog keeps a copy of each patron's shelf to personalise feeds without asking patron (ShelfPublisher). Every
    // change that a feed shows (the patron's book states, hold positions of everyone waiting on a book whose queue
    // moved, ignored books, the count of unread notices) appends the patrons concerned to shelf_changes; appends take
    // no row locks, so these triggers cannot deadlock the transactions that fire them.
    Migration(
        version: 6,
        name: "shelf changes for catalog's copy",
        sql: """
            CREATE TABLE shelf_changes (id bigserial PRIMARY KEY, patron_id uuid NOT NULL);
            CREATE INDEX shelf_changes_patron ON shelf_changes (patron_id, id);
            CREATE TABLE shelf_versions (patron_id uuid PRIMARY KEY, version bigint NOT NULL);
            CREATE FUNCTION shelf_changes_follow() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    INSERT INTO shelf_changes (patron_id)
                    SELECT DISTINCT n.patron_id FROM new_rows n
                    UNION
                    SELECT q.patron_id FROM patron_books q WHERE q.state = 'waiting_for_loan'
                      AND q.book_id IN (SELECT book_id FROM new_rows WHERE state IN ('waiting_for_loan', 'loan_offered'));
                ELSIF TG_OP = 'UPDATE' THEN
                    INSERT INTO shelf_changes (patron_id)
                    SELECT DISTINCT n.patron_id FROM new_rows n
                    UNION
                    SELECT q.patron_id FROM patron_books q WHERE q.state = 'waiting_for_loan'
                      AND q.book_id IN (SELECT book_id FROM old_rows WHERE state IN ('waiting_for_loan', 'loan_offered')
                                        UNION SELECT book_id FROM new_rows WHERE state IN ('waiting_for_loan', 'loan_offered'));
                ELSE
                    INSERT INTO shelf_changes (patron_id)
                    SELECT DISTINCT o.patron_id FROM old_rows o
                    UNION
                    SELECT q.patron_id FROM patron_books q WHERE q.state = 'waiting_for_loan'
                      AND q.book_id IN (SELECT book_id FROM old_rows WHERE state IN ('waiting_for_loan', 'loan_offered'));
                END IF;
                RETURN NULL;
            END $$;
            CREATE TRIGGER shelf_books_insert AFTER INSERT ON patron_books REFERENCING NEW TABLE AS new_rows
                FOR EACH STATEMENT EXECUTE FUNCTION shelf_changes_follow();
            CREATE TRIGGER shelf_books_update AFTER UPDATE ON patron_books REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
                FOR EACH STATEMENT EXECUTE FUNCTION shelf_changes_follow();
            CREATE TRIGGER shelf_books_delete AFTER DELETE ON patron_books REFERENCING OLD TABLE AS old_rows
                FOR EACH STATEMENT EXECUTE FUNCTION shelf_changes_follow();
            CREATE FUNCTION shelf_changes_of_patron() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    INSERT INTO shelf_changes (patron_id) SELECT DISTINCT patron_id FROM old_rows;
                ELSE
                    INSERT INTO shelf_changes (patron_id) SELECT DISTINCT patron_id FROM new_rows;
                END IF;
                RETURN NULL;
            END $$;
            CREATE TRIGGER shelf_ignored_insert AFTER INSERT ON ignored_books REFERENCING NEW TABLE AS new_rows
                FOR EACH STATEMENT EXECUTE FUNCTION shelf_changes_of_patron();
            CREATE TRIGGER shelf_ignored_delete AFTER DELETE ON ignored_books REFERENCING OLD TABLE AS old_rows
                FOR EACH STATEMENT EXECUTE FUNCTION shelf_changes_of_patron();
            CREATE TRIGGER shelf_notices_insert AFTER INSERT ON notifications REFERENCING NEW TABLE AS new_rows
                FOR EACH STATEMENT EXECUTE FUNCTION shelf_changes_of_patron();
            CREATE TRIGGER shelf_notices_update AFTER UPDATE ON notifications REFERENCING NEW TABLE AS new_rows
                FOR EACH STATEMENT EXECUTE FUNCTION shelf_changes_of_patron();
            INSERT INTO shelf_changes (patron_id)
                SELECT patron_id FROM patron_books UNION SELECT patron_id FROM ignored_books;
            """
    ),
    Migration(
        version: 7,
        name: "sign-ups per address",
        sql: """
            CREATE TABLE signup_attempts (address text NOT NULL, attempted_at timestamptz NOT NULL DEFAULT now());
            CREATE INDEX signup_attempts_address ON signup_attempts (address, attempted_at);
            """
    ),
    // Shelf readings are numbered from a sequence (it never goes back, even after a crash), so that a reading writes
    // nothing and costs no commit to disk.
    Migration(
        version: 8,
        name: "shelf versions from a sequence",
        sql: """
            CREATE SEQUENCE shelf_version_seq;
            SELECT setval('shelf_version_seq', coalesce((SELECT max(version) FROM shelf_versions), 0) + 1);
            DROP TABLE shelf_versions;
            """
    ),
    // The export pages a patron's loan history and the reading rules ask whether a patron ever borrowed a book.
    Migration(
        version: 9,
        name: "loan history by patron",
        sql: """
            CREATE INDEX loan_history_patron ON loan_history (patron_id, id);
            """
    ),
    // A hold may be suspended until a date: it keeps its place, but no offer goes to it meanwhile (`promoteHolds`),
    // and the expiry job clears the date once it has passed (`endSuspensions`).
    Migration(
        version: 10,
        name: "hold suspension",
        sql: """
            ALTER TABLE patron_books ADD COLUMN suspended_until timestamptz;
            CREATE INDEX patron_books_suspended ON patron_books (suspended_until) WHERE suspended_until IS NOT NULL;
            """
    ),
    // "Patrons who borrowed this also borrowed" starts from a book's borrowers.
    Migration(
        version: 11,
        name: "loan history by book",
        sql: """
            CREATE INDEX loan_history_book ON loan_history (book_id, patron_id);
            """
    ),
    // A change marks its book's figures as due (`figures_due`) instead of working them out and queueing them in its
    // own transaction (a statement of every borrow and return: a fifth of their throughput); the outbox's pass works
    // them out for many books at once (`FiguresPostgresRepository.queueDue`). Each mark is drawn after the mark's row
    // is locked, so a book's marks grow in the order its changes commit, and the figures go out with their mark as
    // version: above every version the licences' counter gave (figures it queued still go out, and lose to newer ones).
    Migration(
        version: 12,
        name: "figures worked out after the change",
        sql: """
            CREATE TABLE figures_due (book_id uuid PRIMARY KEY, mark bigint NOT NULL);
            CREATE SEQUENCE figures_mark_seq;
            SELECT setval('figures_mark_seq', (SELECT coalesce(max(figures_version), 0) + 1 FROM licenses));
            ALTER TABLE licenses DROP COLUMN figures_version;
            """
    ),
]
