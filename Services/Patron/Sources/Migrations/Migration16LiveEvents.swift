import PostgresSupport

extension PatronMigration {
    // What the web app and other clients hear live (`GET /me/events`). Triggers append an event in the transaction
    // that made it, unnumbered (appends take no locks, as shelf_changes' do); `PatronEventPostgresRepository.number`
    // numbers them one pass at a time under an advisory lock, so that the numbers a patron sees only ever grow in
    // the order they become visible, and a stream that resumes after a number (`Last-Event-ID`) misses nothing.
    static let liveEvents = Migration(
        version: 16,
        name: "live events",
        sql: """
            CREATE SEQUENCE patron_event_seq;
            CREATE TABLE patron_events (
                id bigserial PRIMARY KEY,
                seq bigint,
                patron_id uuid NOT NULL,
                kind text NOT NULL,
                book_id uuid,
                created_at timestamptz NOT NULL DEFAULT now()
            );
            CREATE INDEX patron_events_unnumbered ON patron_events (id) WHERE seq IS NULL;
            CREATE INDEX patron_events_by_patron ON patron_events (patron_id, seq) WHERE seq IS NOT NULL;
            CREATE INDEX patron_events_age ON patron_events (created_at);
            """
    )
}
