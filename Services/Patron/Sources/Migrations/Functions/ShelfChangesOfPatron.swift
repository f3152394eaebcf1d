import PostgresSupport

extension PatronFunction {
    /// As migration 6 ("shelf changes for catalog's copy") last wrote it; why it is so is said there.
    static let shelfChangesOfPatron = DatabaseFunction(
        name: "shelf_changes_of_patron",
        sql: """
            CREATE OR REPLACE FUNCTION shelf_changes_of_patron() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    INSERT INTO shelf_changes (patron_id) SELECT DISTINCT patron_id FROM old_rows;
                ELSE
                    INSERT INTO shelf_changes (patron_id) SELECT DISTINCT patron_id FROM new_rows;
                END IF;
                RETURN NULL;
            END $$;
            CREATE OR REPLACE TRIGGER shelf_ignored_insert AFTER INSERT ON ignored_books REFERENCING NEW TABLE AS new_rows
                FOR EACH STATEMENT EXECUTE FUNCTION shelf_changes_of_patron();
            CREATE OR REPLACE TRIGGER shelf_ignored_delete AFTER DELETE ON ignored_books REFERENCING OLD TABLE AS old_rows
                FOR EACH STATEMENT EXECUTE FUNCTION shelf_changes_of_patron();
            CREATE OR REPLACE TRIGGER shelf_notices_insert AFTER INSERT ON notifications REFERENCING NEW TABLE AS new_rows
                FOR EACH STATEMENT EXECUTE FUNCTION shelf_changes_of_patron();
            CREATE OR REPLACE TRIGGER shelf_notices_update AFTER UPDATE ON notifications REFERENCING NEW TABLE AS new_rows
                FOR EACH STATEMENT EXECUTE FUNCTION shelf_changes_of_patron();
            """
    )
}
