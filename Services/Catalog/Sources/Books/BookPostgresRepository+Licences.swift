import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// Books' licences: an operator's changes to copies, lanes and audience, withdrawal, and the licence each change
/// sends to patron through the outbox in the same transaction.
extension BookPostgresRepository {
    /// An operator's change of a book's licence and lanes (nil keeps a value); false for an unknown book. The new
    /// licence goes to patron through the outbox in the same transaction.
    func edit(
        id: UUID,
        copies: Int?,
        featured: Bool?,
        staffPick: Bool?,
        openAccess: Bool?,
        audience: BookAudience? = nil,
        logger: Logger
    ) async throws -> Bool {
        try await change(id, logger: logger) { connection in
            try await connection.query(
                """
                UPDATE books SET copies = coalesce(\(copies), copies), featured = coalesce(\(featured), featured),
                    staff_pick = coalesce(\(staffPick), staff_pick), open_access = coalesce(\(openAccess), open_access),
                    audience = coalesce(\(audience?.rawValue), audience),
                    license_version = license_version + 1, updated_at = now()
                WHERE id = \(id)
                """,
                logger: logger
            )
        }
    }

    /// Withdraws a book (it leaves every feed; loans end with patron); false for an unknown book.
    func withdraw(id: UUID, logger: Logger) async throws -> Bool {
        try await change(id, logger: logger) { connection in
            try await connection.query(
                "UPDATE books SET withdrawn_at = coalesce(withdrawn_at, now()), license_version = license_version + 1 WHERE id = \(id)",
                logger: logger
            )
        }
    }

    private func change(_ id: UUID, logger: Logger, _ update: @escaping (PostgresConnection) async throws -> Void) async throws -> Bool {
        try await primary.transaction(logger: logger) { connection in
            var found = false
            for try await _ in try await connection.query("SELECT 1 FROM books WHERE id = \(id) FOR UPDATE", logger: logger) { found = true }
            guard found else { return false }
            try await update(connection)
            try await enqueueLicense(id, on: connection, logger: logger)
            return true
        }
    }

    /// Queues every book's licence for patron again, 500 books a transaction (after a restore); returns how many.
    func enqueueEveryLicense(logger: Logger) async throws -> Int {
        var ids: [UUID] = []
        for try await id in try await primary.query("SELECT id FROM books ORDER BY id", logger: logger).decode(UUID.self) { ids.append(id) }
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = ids[start..<min(ids.count, start + 500)]
            try await primary.transaction(logger: logger) { connection in
                for id in chunk { try await enqueueLicense(id, on: connection, logger: logger) }
            }
        }
        return ids.count
    }

    /// Queues the book's licence (copies, open access, withdrawal) for patron, in the caller's transaction.
    func enqueueLicense(_ id: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(
            """
            SELECT copies, open_access, withdrawn_at IS NOT NULL, title, authors, license_version, cover_sha256 IS NOT NULL, koreader_digest,
                audience
            FROM books WHERE id = \(id)
            """,
            logger: logger
        )
        for try await (copies, openAccess, withdrawn, title, authors, version, hasCover, koreaderDigest, audience) in rows.decode(
            (Int, Bool, Bool, String, [String], Int64, Bool, String?, String?).self
        ) {
            let license = License(
                bookId: id,
                copies: copies,
                openAccess: openAccess,
                withdrawn: withdrawn,
                title: title,
                authors: authors,
                version: version,
                hasCover: hasCover,
                koreaderDigest: koreaderDigest,
                audience: audience.flatMap(BookAudience.init(rawValue:))
            )
            try await OutboxPostgresRepository.enqueue(
                key: Self.licenseKeyPrefix + id.lowercased,
                path: InternalRoute.license(id).path,
                payload: license,
                on: connection,
                logger: logger
            )
        }
    }

}
