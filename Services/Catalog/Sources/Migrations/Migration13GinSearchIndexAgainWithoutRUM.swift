import PostgresSupport

extension CatalogMigration {
    // RUM crashed PostgreSQL (signal 11 in a backend, every connection of every service dropped) under concurrent
    // searches at a million books, and has open reports of crashes in its scans (postgrespro/rum#144, #183): search
    // goes back to the GIN index, and the extension is dropped where this database created it.
    static let ginSearchIndexAgainWithoutRUM = Migration(
        version: 13,
        name: "GIN search index again, without RUM",
        sql: """
            CREATE INDEX IF NOT EXISTS books_search ON books USING gin (search);
            DROP INDEX IF EXISTS books_search_rum;
            DO $$
            BEGIN
                DROP EXTENSION IF EXISTS rum;
            EXCEPTION WHEN insufficient_privilege OR dependent_objects_still_exist THEN
                RAISE NOTICE 'rum stays installed; search no longer uses it';
            END
            $$;
            """
    )
}
