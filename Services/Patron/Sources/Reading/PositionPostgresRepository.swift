import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// A patron's reading positions in PostgreSQL, one per book.
struct PositionPostgresRepository: Sendable {
    let client: PostgresClient

    /// Keeps `position` unless a newer one exists (last writer by timestamp wins); false when a newer one is kept.
    /// KOReader's own fields are dropped: KOReader is then given this place (`KOReaderPosition.progress`).
    func savePosition(_ position: ReadingPosition, patronID: UUID, bookID: UUID, logger: Logger) async throws -> Bool {
        let json = String(decoding: try WireFormat.encode(position.locator), as: UTF8.self)
        let rows = try await client.query(
            """
            INSERT INTO positions AS p (patron_id, book_id, locator, written_at, device, percentage)
            VALUES (\(patronID), \(bookID), \(json)::jsonb, \(position.timestamp), \(position.device), \(position.locator.locations.totalProgression))
            ON CONFLICT (patron_id, book_id) DO UPDATE SET locator = EXCLUDED.locator, written_at = EXCLUDED.written_at, device = EXCLUDED.device,
                percentage = EXCLUDED.percentage, koreader_progress = NULL, device_id = NULL
            WHERE p.written_at <= EXCLUDED.written_at
            RETURNING 1
            """,
            logger: logger
        )
        for try await _ in rows { return true }
        return false
    }

    /// The patron's reading positions, of one book or of all, by book; `range` picks a page of them.
    func positions(
        patronID: UUID,
        bookID: UUID?,
        range: Range<Int> = 0..<Int(Int32.max),
        logger: Logger
    ) async throws -> [(bookID: UUID, position: ReadingPosition)] {
        let rows = try await client.query(
            """
            SELECT book_id, locator::text, written_at, device FROM positions
            WHERE patron_id = \(patronID) AND (\(bookID)::uuid IS NULL OR book_id = \(bookID)) ORDER BY book_id
            OFFSET \(range.lowerBound) LIMIT \(range.count)
            """,
            logger: logger
        )
        var result: [(UUID, ReadingPosition)] = []
        for try await (book, locator, written, device) in rows.decode((UUID, String, Date, String).self) {
            let locator = try WireFormat.decoder().decode(Locator.self, from: Data(locator.utf8))
            result.append((book, ReadingPosition(locator: locator, timestamp: written, device: device)))
        }
        return result
    }
}
