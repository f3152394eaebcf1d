import PostgresSupport

extension PatronMigration {
    static let patronsAndSessions = Migration(
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
    )
}
