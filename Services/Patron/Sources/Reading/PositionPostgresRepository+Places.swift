import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// The one position per patron and book as readers other than the web reader give it: a share of the book
/// (KOReader's percentage, OPDS Progression's `progression`), KOReader's XPointer, a device id, kept beside the
/// locator made of them for the web reader.
extension PositionPostgresRepository {
    /// A position with every reader's fields (those the web reader wrote have no `xpointer` nor `deviceID`).
    struct Place: Sendable {
        var locator: Locator
        var percentage: Double?
        var xpointer: String?
        var device: String
        var deviceID: String?
        var writtenAt: Date
    }

    /// Keeps a place given as a share of the book, with `locator` made of it. `modified` is when the reader says it
    /// was there (OPDS Progression): kept unless a newer position exists. Without one (KOReader sends no time) it is
    /// written now and kept. Returns when the kept position was written, or nil when a newer one stays.
    func savePlace(
        locator: Locator,
        percentage: Double,
        xpointer: String?,
        device: String,
        deviceID: String?,
        modified: Date?,
        patronID: UUID,
        bookID: UUID,
        logger: Logger
    ) async throws -> Date? {
        let json = String(decoding: try WireFormat.encode(locator), as: UTF8.self)
        let rows = try await client.query(
            """
            INSERT INTO positions AS p (patron_id, book_id, locator, written_at, device, percentage, koreader_progress, device_id)
            VALUES (\(patronID), \(bookID), \(json)::jsonb, coalesce(\(modified)::timestamptz, clock_timestamp()), \(device), \(percentage),
                \(xpointer), \(deviceID))
            ON CONFLICT (patron_id, book_id) DO UPDATE SET locator = EXCLUDED.locator, device = EXCLUDED.device,
                percentage = EXCLUDED.percentage, koreader_progress = EXCLUDED.koreader_progress, device_id = EXCLUDED.device_id,
                written_at = CASE WHEN \(modified)::timestamptz IS NULL THEN greatest(EXCLUDED.written_at, p.written_at) ELSE EXCLUDED.written_at END
            WHERE \(modified)::timestamptz IS NULL OR p.written_at <= EXCLUDED.written_at
            RETURNING written_at
            """,
            logger: logger
        )
        for try await written in rows.decode(Date.self) { return written }
        return nil
    }

    /// The patron's position in a book with every reader's fields.
    func place(patronID: UUID, bookID: UUID, logger: Logger) async throws -> Place? {
        let rows = try await client.query(
            """
            SELECT locator::text, percentage, koreader_progress, device, device_id, written_at FROM positions
            WHERE patron_id = \(patronID) AND book_id = \(bookID)
            """,
            logger: logger
        )
        for try await (locator, percentage, xpointer, device, deviceID, written) in rows.decode(
            (String, Double?, String?, String, String?, Date).self
        ) {
            let decoded = try WireFormat.decoder().decode(Locator.self, from: Data(locator.utf8))
            return Place(locator: decoded, percentage: percentage, xpointer: xpointer, device: device, deviceID: deviceID, writtenAt: written)
        }
        return nil
    }
}
