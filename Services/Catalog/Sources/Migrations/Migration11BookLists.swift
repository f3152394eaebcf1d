import PostgresSupport

extension CatalogMigration {
    // Named, ordered lists of books: a patron's own (owner set; private until made public) and staff lists (no owner;
    // featured ones are lanes of the root and grouped feeds).
    static let bookLists = Migration(
        version: 11,
        name: "book lists",
        sql: """
            CREATE TABLE book_lists (
                id uuid PRIMARY KEY,
                owner_patron_id uuid,
                title text NOT NULL,
                description text NOT NULL DEFAULT '',
                public boolean NOT NULL DEFAULT false,
                featured boolean NOT NULL DEFAULT false,
                created_at timestamptz NOT NULL DEFAULT now(),
                updated_at timestamptz NOT NULL DEFAULT now()
            );
            CREATE INDEX book_lists_owner ON book_lists (owner_patron_id, created_at);
            CREATE INDEX book_lists_featured ON book_lists (created_at) WHERE featured AND owner_patron_id IS NULL;
            CREATE TABLE book_list_items (
                list_id uuid NOT NULL REFERENCES book_lists ON DELETE CASCADE,
                book_id uuid NOT NULL REFERENCES books,
                position integer NOT NULL,
                PRIMARY KEY (list_id, book_id)
            );
            CREATE INDEX book_list_items_order ON book_list_items (list_id, position);
            """
    )
}
