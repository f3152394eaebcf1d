import PostgresSupport

extension CatalogMigration {
    // Covers are raster images only (an SVG can carry script): earlier covers of another type are dropped, and patron
    // learns through the outbox that those books have none.
    static let rasterCoversOnly = Migration(
        version: 6,
        name: "raster covers only",
        sql: """
            WITH dropped AS (
                UPDATE books SET cover_sha256 = NULL, cover_type = NULL, thumbnail_sha256 = NULL, thumbnail_type = NULL,
                    license_version = license_version + 1, updated_at = now()
                WHERE cover_sha256 IS NOT NULL AND coalesce(cover_type, '') NOT IN ('image/jpeg', 'image/png', 'image/gif', 'image/webp')
                RETURNING id, copies, open_access, withdrawn_at IS NOT NULL AS withdrawn, title, authors, license_version)
            INSERT INTO outbox (key, path, payload)
                SELECT 'license:' || id, '/internal/licenses/' || id, jsonb_build_object('bookId', id, 'copies', copies, 'openAccess', open_access,
                    'withdrawn', withdrawn, 'title', title, 'authors', authors, 'version', license_version, 'hasCover', false)
                FROM dropped
            ON CONFLICT (key) DO UPDATE SET path = EXCLUDED.path, payload = EXCLUDED.payload,
                revision = outbox.revision + 1, attempts = 0, next_attempt_at = now();
            """
    )
}
