import PostgresSupport

extension PatronMigration {
    // A write sent with `Idempotency-Key` keeps its key in the write's own transaction, and its answer just after, so
    // that a client's retry is answered again instead of applied again (`IdempotencyKeyMiddleware`). Kept a day.
    static let idempotencyKeys = Migration(
        version: 13,
        name: "idempotency keys",
        sql: """
            CREATE TABLE idempotency_keys (
                patron_id uuid NOT NULL REFERENCES patrons ON DELETE CASCADE,
                key text NOT NULL,
                fingerprint bytea NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                status integer,
                content_type text,
                location text,
                body bytea,
                PRIMARY KEY (patron_id, key)
            );
            CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
            """
    )
}
