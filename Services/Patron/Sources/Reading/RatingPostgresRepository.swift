import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// A patron's ratings in PostgreSQL; each change marks the book's figures due for catalog.
struct RatingPostgresRepository: Sendable {
    let client: PostgresClient

    /// Sets the patron's stars for a book; the book's new average goes to catalog through the outbox.
    func rate(_ stars: Int, patronID: UUID, bookID: UUID, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            try await connection.query(
                """
                INSERT INTO ratings (patron_id, book_id, stars) VALUES (\(patronID), \(bookID), \(stars))
                ON CONFLICT (patron_id, book_id) DO UPDATE SET stars = EXCLUDED.stars, updated_at = now()
                """,
                logger: logger
            )
            try await FiguresPostgresRepository.markDue(bookID: bookID, on: connection, logger: logger)
        }
    }

    func rating(patronID: UUID, bookID: UUID, logger: Logger) async throws -> Int? {
        let rows = try await client.query("SELECT stars FROM ratings WHERE patron_id = \(patronID) AND book_id = \(bookID)", logger: logger)
        for try await stars in rows.decode(Int.self) { return stars }
        return nil
    }

    func removeRating(patronID: UUID, bookID: UUID, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                "DELETE FROM ratings WHERE patron_id = \(patronID) AND book_id = \(bookID) RETURNING 1",
                logger: logger
            )
            for try await _ in rows { try await FiguresPostgresRepository.markDue(bookID: bookID, on: connection, logger: logger) }
        }
    }

    func ratings(patronID: UUID, logger: Logger) async throws -> [(bookID: UUID, stars: Int)] {
        var result: [(UUID, Int)] = []
        for try await row in try await client.query(
            "SELECT book_id, stars FROM ratings WHERE patron_id = \(patronID) ORDER BY book_id",
            logger: logger
        )
        .decode((UUID, Int).self) {
            result.append(row)
        }
        return result
    }
}
