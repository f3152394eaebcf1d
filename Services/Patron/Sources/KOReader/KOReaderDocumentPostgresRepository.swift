import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// KOReader's progress in files the library does not know as the patron's books (another file, or a book the
/// patron never borrowed): kept for the patron under KOReader's document name and returned to KOReader.
struct KOReaderDocumentPostgresRepository: Sendable {
    let client: PostgresClient

    /// KOReader's progress in one file, as it sent it.
    struct Progress: Sendable {
        var percentage: Double
        var progress: String
        var device: String
        var deviceID: String?
        var writtenAt: Date
    }

    /// Keeps the progress, written now, and forgets the patron's least recently written documents past `limit` (each
    /// field is bounded too, so one patron's share of the table is: a device sending made-up names cannot grow it);
    /// returns when.
    func save(_ progress: Progress, document: String, patronID: UUID, limit: Int, logger: Logger) async throws -> Date {
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                INSERT INTO koreader_documents AS d (patron_id, document, progress, percentage, device, device_id, written_at)
                VALUES (\(patronID), \(document), \(progress.progress), \(progress.percentage), \(progress.device), \(progress.deviceID),
                        clock_timestamp())
                ON CONFLICT (patron_id, document) DO UPDATE SET progress = EXCLUDED.progress, percentage = EXCLUDED.percentage,
                    device = EXCLUDED.device, device_id = EXCLUDED.device_id, written_at = greatest(EXCLUDED.written_at, d.written_at)
                RETURNING written_at
                """,
                logger: logger
            )
            var written: Date?
            for try await date in rows.decode(Date.self) { written = date }
            try await connection.query(
                """
                DELETE FROM koreader_documents WHERE patron_id = \(patronID) AND document IN (
                    SELECT document FROM koreader_documents WHERE patron_id = \(patronID) ORDER BY written_at DESC, document OFFSET \(limit))
                """,
                logger: logger
            )
            guard let written else { throw CancellationError() }
            return written
        }
    }

    func progress(document: String, patronID: UUID, logger: Logger) async throws -> Progress? {
        let rows = try await client.query(
            """
            SELECT percentage, progress, device, device_id, written_at FROM koreader_documents
            WHERE patron_id = \(patronID) AND document = \(document)
            """,
            logger: logger
        )
        for try await (percentage, progress, device, deviceID, written) in rows.decode((Double, String, String, String?, Date).self) {
            return Progress(percentage: percentage, progress: progress, device: device, deviceID: deviceID, writtenAt: written)
        }
        return nil
    }

    /// Every document's progress of the patron (their export), by document, handed to `each` as the rows come.
    func all(patronID: UUID, logger: Logger, _ each: (String, Progress) async throws -> Void) async throws {
        let rows = try await client.query(
            """
            SELECT document, percentage, progress, device, device_id, written_at FROM koreader_documents
            WHERE patron_id = \(patronID) ORDER BY document
            """,
            logger: logger
        )
        for try await (document, percentage, progress, device, deviceID, written) in rows.decode((String, Double, String, String, String?, Date).self)
        {
            try await each(document, Progress(percentage: percentage, progress: progress, device: device, deviceID: deviceID, writtenAt: written))
        }
    }
}
