import PostgresSupport

extension PatronFunction {
    /// As migration 6 ("shelf changes for catalog's copy") last wrote it; why it is so is said there.
    static let shelfChangesFollow = DatabaseFunction(
        name: "shelf_changes_follow",
        sql: """
            CREATE OR REPLACE FUNCTION shelf_changes_follow() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    INSERT INTO shelf_changes (patron_id)
                    SELECT DISTINCT n.patron_id FROM new_rows n
                    UNION
                    SELECT q.patron_id FROM patron_books q WHERE q.state = 'waiting_for_loan'
                      AND q.book_id IN (SELECT book_id FROM new_rows WHERE state IN ('waiting_for_loan', 'loan_offered'));
                ELSIF TG_OP = 'UPDATE' THEN
                    INSERT INTO shelf_changes (patron_id)
                    SELECT DISTINCT n.patron_id FROM new_rows n
                    UNION
                    SELECT q.patron_id FROM patron_books q WHERE q.state = 'waiting_for_loan'
                      AND q.book_id IN (SELECT book_id FROM old_rows WHERE state IN ('waiting_for_loan', 'loan_offered')
                                        UNION SELECT book_id FROM new_rows WHERE state IN ('waiting_for_loan', 'loan_offered'));
                ELSE
                    INSERT INTO shelf_changes (patron_id)
                    SELECT DISTINCT o.patron_id FROM old_rows o
                    UNION
                    SELECT q.patron_id FROM patron_books q WHERE q.state = 'waiting_for_loan'
                      AND q.book_id IN (SELECT book_id FROM old_rows WHERE state IN ('waiting_for_loan', 'loan_offered'));
                END IF;
                RETURN NULL;
            END $$;
            CREATE OR REPLACE TRIGGER shelf_books_insert AFTER INSERT ON patron_books REFERENCING NEW TABLE AS new_rows
                FOR EACH STATEMENT EXECUTE FUNCTION shelf_changes_follow();
            CREATE OR REPLACE TRIGGER shelf_books_update AFTER UPDATE ON patron_books REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
                FOR EACH STATEMENT EXECUTE FUNCTION shelf_changes_follow();
            CREATE OR REPLACE TRIGGER shelf_books_delete AFTER DELETE ON patron_books REFERENCING OLD TABLE AS old_rows
                FOR EACH STATEMENT EXECUTE FUNCTION shelf_changes_follow();
            """
    )
}
