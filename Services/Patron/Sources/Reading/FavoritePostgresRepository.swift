import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// A patron's favourite books in PostgreSQL.
struct FavoritePostgresRepository: Sendable {
    let client: PostgresClient

    func setFavorite(_ on: Bool, patronID: UUID, bookID: UUID, logger: Logger) async throws {
        if on {
            try await client.query(
                "INSERT INTO favorites (patron_id, book_id) VALUES (\(patronID), \(bookID)) ON CONFLICT DO NOTHING",
                logger: logger
            )
        } else {
            try await client.query("DELETE FROM favorites WHERE patron_id = \(patronID) AND book_id = \(bookID)", logger: logger)
        }
    }
}
