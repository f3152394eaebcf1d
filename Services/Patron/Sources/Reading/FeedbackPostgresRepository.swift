import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport

/// Storage of feedback messages, with the per-address hourly limit kept under concurrency.
struct FeedbackPostgresRepository: Sendable {
    let client: PostgresClient

    enum Failure: Error, Equatable {
        /// The address sent `limit` messages in the last hour already.
        case tooMany(limit: Int)
    }

    /// A new message. From a known address, the address's messages of the last hour are counted and the message
    /// stored under an advisory lock on the address, so that parallel posts cannot pass the limit together.
    func submit(_ message: FeedbackController.Stored, clientAddress caller: String?, patronID: UUID?, perHour: Int, logger: Logger) async throws {
        // Counted (and kept) by the limits' key: an IPv6 client's /64.
        let clientAddress = caller.map(IPAddressBlock.limitKey)
        try await client.transaction(logger: logger) { connection in
            if let address = clientAddress {
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext('feedback:' || \(address)))", logger: logger)
                let rows = try await connection.query(
                    "SELECT count(*)::int FROM feedback WHERE client_address = \(address) AND created_at > now() - interval '1 hour'",
                    logger: logger
                )
                for try await count in rows.decode(Int.self) where count >= perHour { throw Failure.tooMany(limit: perHour) }
            }
            try await connection.query(
                """
                INSERT INTO feedback (id, patron_id, message, email, book_id, kind, client_address)
                VALUES (\(message.id), \(patronID), \(message.message), \(message.email), \(message.bookId), \(message.kind), \(clientAddress))
                """,
                logger: logger
            )
        }
    }

    /// A page of messages, newest first, after the message `after`.
    func list(size: Int, after: UUID?, logger: Logger) async throws -> [FeedbackController.Stored] {
        let rows = try await client.query(
            """
            SELECT id, message, email, book_id, kind, patron_id IS NOT NULL, created_at FROM feedback
            WHERE \(after)::uuid IS NULL OR (created_at, id) < (SELECT created_at, id FROM feedback WHERE id = \(after))
            ORDER BY created_at DESC, id DESC LIMIT \(size)
            """,
            logger: logger
        )
        var items: [FeedbackController.Stored] = []
        for try await (id, message, email, book, kind, signedIn, created) in rows.decode((UUID, String, String?, UUID?, String, Bool, Date).self) {
            items.append(.init(id: id, message: message, email: email, bookId: book, kind: kind, signedIn: signedIn, createdAt: created))
        }
        return items
    }
}
