import PostgresSupport

extension CatalogMigration {
    // Version 12 put a RUM index in the GIN index's place where the extension could be had; version 13 takes it back.
    static let rumSearchIndexWhereAvailable = Migration(
        version: 12,
        name: "RUM search index where available",
        sql: """
            DO $$
            BEGIN
                IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'rum') THEN
                    BEGIN
                        CREATE EXTENSION IF NOT EXISTS rum;
                    EXCEPTION WHEN insufficient_privilege THEN
                        RAISE NOTICE 'rum is available but cannot be created here: search keeps its GIN index';
                    END;
                END IF;
                IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'rum') THEN
                    CREATE INDEX books_search_rum ON books USING rum (search rum_tsvector_ops);
                    DROP INDEX books_search;
                END IF;
            END
            $$;
            """
    )
}
