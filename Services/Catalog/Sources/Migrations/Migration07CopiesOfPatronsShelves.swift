import PostgresSupport

extension CatalogMigration {
    // Patron's copy of each patron's shelf (ShelfCopyPostgresRepository): feeds are personalised from it without a call.
    static let copiesOfPatronsShelves = Migration(
        version: 7,
        name: "copies of patrons' shelves",
        sql: """
            CREATE TABLE patron_shelves (
                patron_id uuid PRIMARY KEY,
                version bigint NOT NULL,
                shelf jsonb NOT NULL,
                updated_at timestamptz NOT NULL DEFAULT now()
            );
            """
    )
}
