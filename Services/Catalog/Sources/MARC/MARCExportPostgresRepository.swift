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
            SELECT \(unescaped: BookPostgresRepository.entryColumns), added_at, withdrawn_at
            FROM books
            WHERE CASE WHEN \(since)::timestamptz IS NULL THEN withdrawn_at IS NULL
                ELSE (withdrawn_at IS NULL AND (updated_at >= \(since) OR added_at >= \(since))) OR withdrawn_at >= \(since) END
            ORDER BY id
            """,
            logger: logger
        )
        let first = BookPostgresRepository.entryColumnCount
        for try await row in rows {
            let cells = row.makeRandomAccess()
            let book = MARCCataloguing.Book(
                entry: try BookPostgresRepository.decodeEntry(cells),
                addedAt: try cells[first].decode(Date.self),
                withdrawnAt: try cells[first + 1].decode(Date?.self)
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
