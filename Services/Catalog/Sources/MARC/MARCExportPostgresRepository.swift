import Foundation
import Logging
import PostgresNIO

/// The books a MARC export describes, read as they stream: the collection (every book not withdrawn), or the changes
/// since a time (new, changed, and withdrawn as deleted records).
struct MARCExportPostgresRepository: Sendable {
    let client: PostgresClient

    /// How many records the export will have.
    func count(since: Date?, logger: Logger) async throws -> Int {
        let rows = try await client.query(
            """
            SELECT count(*)::int FROM books
            WHERE CASE WHEN \(since)::timestamptz IS NULL THEN withdrawn_at IS NULL
                ELSE (withdrawn_at IS NULL AND (updated_at >= \(since) OR added_at >= \(since))) OR withdrawn_at >= \(since) END
            """,
            logger: logger
        )
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// Calls `each` with every book of the export and its record's status, in id order.
    func each(since: Date?, logger: Logger, _ each: (MARCCataloguing.Book, MARCRecord.Status) async throws -> Void) async throws {
        let rows = try await client.query(
            """
            SELECT id, title, subtitle, authors, languages, publisher, published, description, subjects, isbn, series,
                series_position, added_at, updated_at, withdrawn_at, cover_sha256 IS NOT NULL
            FROM books
            WHERE CASE WHEN \(since)::timestamptz IS NULL THEN withdrawn_at IS NULL
                ELSE (withdrawn_at IS NULL AND (updated_at >= \(since) OR added_at >= \(since))) OR withdrawn_at >= \(since) END
            ORDER BY id
            """,
            logger: logger
        )
        typealias Row = (
            UUID, String, String?, [String], [String], String?, String?, String?, [String], String?, String?, Double?, Date, Date, Date?, Bool
        )
        for try await row in rows.decode(Row.self) {
            let book = MARCCataloguing.Book(
                id: row.0,
                title: row.1,
                subtitle: row.2,
                authors: row.3,
                languages: row.4,
                publisher: row.5,
                published: row.6,
                description: row.7,
                subjects: row.8,
                isbn: row.9,
                series: row.10,
                seriesPosition: row.11,
                addedAt: row.12,
                updatedAt: row.13,
                withdrawnAt: row.14,
                hasCover: row.15
            )
            let status: MARCRecord.Status
            if let since {
                status = book.withdrawnAt != nil ? .deleted : book.addedAt >= since ? .new : .corrected
            } else {
                status = .new
            }
            try await each(book, status)
        }
    }
}
