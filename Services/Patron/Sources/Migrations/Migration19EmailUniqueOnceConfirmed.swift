import PostgresSupport

extension PatronMigration {
    // An address is one patron's only once its owner confirmed it: an unconfirmed claim (anyone may type any address
    // into their account) no longer blocks the address's owner from signing up, and a change of address no longer
    // answers 409 for an address another account holds, which told whether it was registered. A confirmation that
    // stands only while it is the account's address: stale ones are dropped first, so the new index holds. Verification
    // mails are counted per patron and per address (the limits on changes of address).
    static let emailUniqueOnceConfirmed = Migration(
        version: 19,
        name: "email unique once confirmed",
        sql: """
            UPDATE patrons SET email_verified = NULL WHERE email_verified IS DISTINCT FROM email;
            DROP INDEX patrons_email;
            CREATE INDEX patrons_email ON patrons (lower(email));
            CREATE UNIQUE INDEX patrons_email_verified ON patrons (lower(email_verified)) WHERE email_verified IS NOT NULL;
            CREATE INDEX mail_messages_verifications_by_address ON mail_messages (lower(address), created_at) WHERE kind = 'verify_address';
            CREATE INDEX mail_messages_verifications_by_patron ON mail_messages (patron_id, created_at) WHERE kind = 'verify_address';
            """
    )
}
