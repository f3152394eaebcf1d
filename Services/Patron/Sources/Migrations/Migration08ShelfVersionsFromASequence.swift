import PostgresSupport

extension PatronMigration {
    // Shelf readings are numbered from a sequence (it never goes back, even after a crash), so that a reading writes
    // nothing and costs no commit to disk.
    static let shelfVersionsFromASequence = Migration(
        version: 8,
        name: "shelf versions from a sequence",
        sql: """
            CREATE SEQUENCE shelf_version_seq;
            SELECT setval('shelf_version_seq', coalesce((SELECT max(version) FROM shelf_versions), 0) + 1);
            DROP TABLE shelf_versions;
            """
    )
}
