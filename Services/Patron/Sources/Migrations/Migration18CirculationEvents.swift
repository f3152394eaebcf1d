import PostgresSupport

extension PatronMigration {
    // Every borrow, return, renewal, expiry, hold, offer, acceptance, decline and cancellation, recorded in the statement
    // that makes it (a CTE of the write: no round trip more), for the console's reports. The patron is kept only to be
    // pseudonymised in reports (`ReportPseudonym`) and is erased with the account.
    static let circulationEvents = Migration(
        version: 18,
        name: "circulation events",
        sql: """
            CREATE TABLE circulation_events (
                id bigserial PRIMARY KEY,
                at timestamptz NOT NULL DEFAULT now(),
                event text NOT NULL,
                book_id uuid NOT NULL,
                patron_id uuid
            );
            CREATE INDEX circulation_events_at ON circulation_events (at);
            CREATE INDEX circulation_events_patron ON circulation_events (patron_id) WHERE patron_id IS NOT NULL;
            """
    )
}
