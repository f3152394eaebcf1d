import Foundation
import Logging
import PostgresNIO

/// What staff did, and who (the admin token's name, `AdminCaller`): recorded in the transaction of the change itself.
struct StaffAuditPostgresRepository: Sendable {
    let client: PostgresClient

    struct Entry: Encodable, Sendable {
        let id: Int64
        let at: Date
        let staff: String
        let action: String
        let patronId: UUID?
        let bookId: UUID?
        let detail: String
    }

    static func record(
        _ action: String,
        staff: String,
        patronID: UUID?,
        bookID: UUID? = nil,
        detail: String = "",
        on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        try await connection.query(
            """
            INSERT INTO staff_audit (staff, action, patron_id, book_id, detail)
            VALUES (\(staff), \(action), \(patronID), \(bookID), \(detail))
            """,
            logger: logger
        )
    }

    /// The newest entries first, of one patron or of everyone, before the entry `before` (paging).
    /// An entry of its own, for what staff read rather than changed (a patron's page, a report downloaded).
    func record(_ action: String, staff: String, patronID: UUID? = nil, detail: String = "", logger: Logger) async throws {
        try await client.query(
            "INSERT INTO staff_audit (staff, action, patron_id, detail) VALUES (\(staff), \(action), \(patronID), \(detail))",
            logger: logger
        )
    }

    func list(patronID: UUID?, before: Int64?, limit: Int, logger: Logger) async throws -> [Entry] {
        let rows = try await client.query(
            """
            SELECT id, at, staff, action, patron_id, book_id, detail FROM staff_audit
            WHERE (\(patronID)::uuid IS NULL OR patron_id = \(patronID)) AND (\(before)::int8 IS NULL OR id < \(before))
            ORDER BY id DESC LIMIT \(limit)
            """,
            logger: logger
        )
        var entries: [Entry] = []
        for try await (id, at, staff, action, patron, book, detail) in rows.decode((Int64, Date, String, String, UUID?, UUID?, String).self) {
            entries.append(Entry(id: id, at: at, staff: staff, action: action, patronId: patron, bookId: book, detail: detail))
        }
        return entries
    }

    /// A deleted account's entries keep who did what and when, not whom or which book.
    static func forget(patronID: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("UPDATE staff_audit SET patron_id = NULL, book_id = NULL WHERE patron_id = \(patronID)", logger: logger)
    }
}
