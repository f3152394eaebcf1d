import PostgresSupport

extension PatronMigration {
    // Purchase suggestions: a patron asks the library to buy a title; staff answer (ordered, declined) and merge the
    // same title asked by several patrons into one; when a book of that title arrives, each asker is told
    // (`suggestion_arrived`, a notification: mail and live event). `title_key` is the title as matching sees it.
    static let purchaseSuggestions = Migration(
        version: 24,
        name: "purchase suggestions",
        sql: """
            CREATE TABLE purchase_suggestions (
                id uuid PRIMARY KEY,
                patron_id uuid REFERENCES patrons ON DELETE CASCADE,
                title text NOT NULL,
                author text,
                note text,
                title_key text NOT NULL,
                status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'ordered', 'declined', 'arrived')),
                answer text,
                merged_into uuid REFERENCES purchase_suggestions ON DELETE SET NULL,
                book_id uuid,
                created_at timestamptz NOT NULL DEFAULT now(),
                answered_at timestamptz
            );
            CREATE UNIQUE INDEX purchase_suggestions_once ON purchase_suggestions (patron_id, title_key) WHERE status IN ('open', 'ordered');
            CREATE INDEX purchase_suggestions_waiting ON purchase_suggestions (title_key) WHERE status IN ('open', 'ordered');
            CREATE INDEX purchase_suggestions_by_patron ON purchase_suggestions (patron_id, created_at);
            """
    )
}
