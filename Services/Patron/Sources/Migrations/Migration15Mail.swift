import PostgresSupport

extension PatronMigration {
    // Email to patrons: the address a patron verified (the one in `email` only while they are equal, so a changed
    // address is unverified at once), an address the relay refused for good, the kinds of mail a patron turned off,
    // the language of their mail, and the queue of messages, one per notification or verification, each sent once.
    static let mail = Migration(
        version: 15,
        name: "Mail",
        sql: """
            ALTER TABLE patrons
                ADD COLUMN email_verified text,
                ADD COLUMN email_refused text,
                ADD COLUMN email_refused_reason text,
                ADD COLUMN mail_off text[] NOT NULL DEFAULT '{}',
                ADD COLUMN mail_language text NOT NULL DEFAULT 'en';
            CREATE TABLE mail_messages (
                id uuid PRIMARY KEY,
                patron_id uuid NOT NULL REFERENCES patrons ON DELETE CASCADE,
                kind text NOT NULL,
                book_id uuid,
                dedupe_key text NOT NULL UNIQUE,
                address text NOT NULL,
                deadline timestamptz,
                status text NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'sent', 'failed')),
                attempts int NOT NULL DEFAULT 0,
                next_attempt_at timestamptz NOT NULL DEFAULT now(),
                last_error text,
                created_at timestamptz NOT NULL DEFAULT now(),
                sent_at timestamptz
            );
            CREATE INDEX mail_messages_waiting ON mail_messages (next_attempt_at) WHERE status = 'waiting';
            CREATE INDEX mail_messages_by_time ON mail_messages (created_at DESC);
            """
    )
}
