import PostgresSupport

extension PatronMigration {
    // Patrons the library's ILS vouches for (SIP2): how a patron signs in, what the ILS last said stops their
    // borrowing (kept apart from staff's block, which the next sign-in must not undo), when the ILS last accepted their
    // card and PIN (`SIP2_OFFLINE_GRACE`), and their patron type (adult, teen, child).
    static let patronsOfTheLibrarysILS = Migration(
        version: 21,
        name: "patrons of the library's ILS",
        sql: """
            ALTER TABLE patrons
                ADD COLUMN sign_in text NOT NULL DEFAULT 'local' CHECK (sign_in IN ('local', 'sip2', 'oidc')),
                ADD COLUMN ils_block text,
                ADD COLUMN ils_checked_at timestamptz,
                ADD COLUMN patron_type text;
            """
    )
}
