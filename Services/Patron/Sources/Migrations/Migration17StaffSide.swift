import PostgresSupport

extension PatronMigration {
    // The library's side: a patron staff blocked (and why: they keep what they have, take nothing new), patrons found
    // by the start of their card number, username or email, the log of what staff did (the admin token's name), and
    // the announcements patrons see while they are current.
    static let staffSide = Migration(
        version: 17,
        name: "staff side",
        sql: """
            ALTER TABLE patrons ADD COLUMN blocked_reason text, ADD COLUMN blocked_at timestamptz;
            CREATE INDEX patrons_barcode_prefix ON patrons (barcode text_pattern_ops);
            CREATE INDEX patrons_username_prefix ON patrons (lower(username) text_pattern_ops);
            CREATE INDEX patrons_email_prefix ON patrons (lower(email) text_pattern_ops);
            CREATE TABLE staff_audit (
                id bigserial PRIMARY KEY,
                at timestamptz NOT NULL DEFAULT now(),
                staff text NOT NULL,
                action text NOT NULL,
                patron_id uuid,
                book_id uuid,
                detail text NOT NULL DEFAULT ''
            );
            CREATE INDEX staff_audit_patron ON staff_audit (patron_id, id);
            CREATE TABLE announcements (
                id uuid PRIMARY KEY,
                content text NOT NULL,
                starts_at timestamptz NOT NULL,
                ends_at timestamptz NOT NULL CHECK (ends_at > starts_at),
                created_by text NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now()
            );
            """
    )
}
