import PostgresSupport

extension PatronMigration {
    static let signInThrottlingByLoginPairAndAddress = Migration(
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
    )
}
