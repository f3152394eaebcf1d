import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// What staff tell every patron for a while (a closure, new hours): shown in the web app's header and in the
/// authentication document's `announcements` (as Palace's apps read it) from its start to its end.
struct AnnouncementPostgresRepository: Sendable {
    let client: PostgresClient

    struct Announcement: Encodable, Sendable {
        let id: UUID
        let content: String
        let start: Date
        let end: Date
        let createdBy: String
        let createdAt: Date
        let current: Bool
    }

    /// As the authentication document carries it.
    struct Current: Encodable, Sendable {
        let id: String
        let content: String
    }

    func create(content: String, start: Date, end: Date, staff: String, logger: Logger) async throws -> UUID {
        let id = UUID()
        try await client.transaction(logger: logger) { connection in
            try await connection.query(
                """
                INSERT INTO announcements (id, content, starts_at, ends_at, created_by)
                VALUES (\(id), \(content), \(start), \(end), \(staff))
                """,
                logger: logger
            )
            try await StaffAuditPostgresRepository.record("announce", staff: staff, patronID: nil, detail: content, on: connection, logger: logger)
        }
        return id
    }

    /// Every announcement not ended more than a month ago, the latest start first.
    func list(logger: Logger) async throws -> [Announcement] {
        let rows = try await client.query(
            """
            SELECT id, content, starts_at, ends_at, created_by, created_at, now() BETWEEN starts_at AND ends_at FROM announcements
            WHERE ends_at > now() - interval '30 days' ORDER BY starts_at DESC LIMIT 100
            """,
            logger: logger
        )
        var found: [Announcement] = []
        for try await (id, content, start, end, by, at, current) in rows.decode((UUID, String, Date, Date, String, Date, Bool).self) {
            found.append(Announcement(id: id, content: content, start: start, end: end, createdBy: by, createdAt: at, current: current))
        }
        return found
    }

    /// The announcements whose time is now, the earliest start first.
    func current(logger: Logger) async throws -> [Current] {
        let rows = try await client.query(
            "SELECT id, content FROM announcements WHERE now() BETWEEN starts_at AND ends_at ORDER BY starts_at, id LIMIT 20",
            logger: logger
        )
        var found: [Current] = []
        for try await (id, content) in rows.decode((UUID, String).self) { found.append(Current(id: id.uuidString.lowercased(), content: content)) }
        return found
    }

    /// False when there is no such announcement.
    func delete(_ id: UUID, staff: String, logger: Logger) async throws -> Bool {
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query("DELETE FROM announcements WHERE id = \(id) RETURNING content", logger: logger)
            var content: String?
            for try await text in rows.decode(String.self) { content = text }
            guard let content else { return false }
            try await StaffAuditPostgresRepository.record(
                "withdraw-announcement",
                staff: staff,
                patronID: nil,
                detail: content,
                on: connection,
                logger: logger
            )
            return true
        }
    }
}
