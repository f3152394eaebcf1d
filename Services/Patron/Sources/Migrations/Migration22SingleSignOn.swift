import PostgresSupport

extension PatronMigration {
    // Single sign-on (OpenID Connect): a sign-in under way between the redirect to the provider and its return (its
    // state's hash, the nonce and PKCE verifier, where the app asked to be sent back, and the address it came from, whose
    // sign-ins under way are capped), in the database so that either replica may receive the return; and each patron's
    // identity at a provider (issuer and subject).
    static let singleSignOn = Migration(
        version: 22,
        name: "single sign-on",
        sql: """
            CREATE TABLE oidc_sign_ins (
                state_hash text PRIMARY KEY,
                nonce text NOT NULL,
                code_verifier text NOT NULL,
                app_redirect text NOT NULL,
                app_state text,
                client_address text,
                expires_at timestamptz NOT NULL
            );
            CREATE INDEX oidc_sign_ins_expiry ON oidc_sign_ins (expires_at);
            CREATE INDEX oidc_sign_ins_by_address ON oidc_sign_ins (client_address, expires_at);
            CREATE TABLE patron_identities (
                issuer text NOT NULL,
                subject text NOT NULL,
                patron_id uuid NOT NULL UNIQUE REFERENCES patrons ON DELETE CASCADE,
                created_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (issuer, subject)
            );
            """
    )
}
