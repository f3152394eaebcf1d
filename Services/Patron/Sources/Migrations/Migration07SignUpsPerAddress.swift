import PostgresSupport

extension PatronMigration {
    static let signUpsPerAddress = Migration(
        version: 7,
        name: "sign-ups per address",
        sql: """
            CREATE TABLE signup_attempts (address text NOT NULL, attempted_at timestamptz NOT NULL DEFAULT now());
            CREATE INDEX signup_attempts_address ON signup_attempts (address, attempted_at);
            """
    )
}
