import PostgresSupport

extension PatronMigration {
    // A KOReader sync key made through the library's identity provider (a patron who signs in there has no PIN to
    // confirm a key with): the sign-in under way names the device the key is for, and its return makes the key
    // instead of a session.
    static let syncKeysThroughSingleSignOn = Migration(
        version: 25,
        name: "sync keys through single sign-on",
        sql: """
            ALTER TABLE oidc_sign_ins ADD COLUMN sync_key_device text;
            """
    )
}
