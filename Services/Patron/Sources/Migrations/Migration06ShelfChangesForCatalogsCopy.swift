import PostgresSupport

extension PatronMigration {
    // Catalog keeps a copy of each patron's shelf to personalise feeds without asking patron (ShelfPublisher). Every
    // change that a feed shows (the patron's book states, hold positions of everyone waiting on a book whose queue
    // moved, ignored books, the count of unread notices) appends the patrons concerned to shelf_changes; appends take
    // no row locks, so these triggers cannot deadlock the transactions that fire them.
    static let shelfChangesForCatalogsCopy = Migration(
        version: 6,
        name: "shelf changes for catalog's copy",
        sql: """
            CREATE TABLE shelf_changes (id bigserial PRIMARY KEY, patron_id uuid NOT NULL);
            CREATE INDEX shelf_changes_patron ON shelf_changes (patron_id, id);
            CREATE TABLE shelf_versions (patron_id uuid PRIMARY KEY, version bigint NOT NULL);
            """
    )
}
