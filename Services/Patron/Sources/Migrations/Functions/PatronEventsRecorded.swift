import PostgresSupport

extension PatronFunction {
    /// Live events (migration 16): a notification recorded is an event of its kind; a patron appended to
    /// shelf_changes (their books' states, their place in a queue that moved, a notification read) is a
    /// `shelf_changed` event. Appends only, like shelf_changes' own triggers: they cannot deadlock what fires them.
    static let patronEventsRecorded = DatabaseFunction(
        name: "patron_events_recorded",
        sql: """
            CREATE OR REPLACE FUNCTION patron_events_of_notifications() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO patron_events (patron_id, kind, book_id) SELECT patron_id, kind, book_id FROM new_rows;
                RETURN NULL;
            END $$;
            CREATE OR REPLACE FUNCTION patron_events_of_shelves() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO patron_events (patron_id, kind) SELECT DISTINCT patron_id, 'shelf_changed' FROM new_rows;
                RETURN NULL;
            END $$;
            CREATE OR REPLACE TRIGGER patron_events_notifications AFTER INSERT ON notifications REFERENCING NEW TABLE AS new_rows
                FOR EACH STATEMENT EXECUTE FUNCTION patron_events_of_notifications();
            CREATE OR REPLACE TRIGGER patron_events_shelves AFTER INSERT ON shelf_changes REFERENCING NEW TABLE AS new_rows
                FOR EACH STATEMENT EXECUTE FUNCTION patron_events_of_shelves();
            """
    )
}
