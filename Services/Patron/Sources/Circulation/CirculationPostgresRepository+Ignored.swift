import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// Books a patron hides from their feeds.
extension CirculationPostgresRepository {
    /// Hides the book from the patron's feeds (or shows it again), within `rules.ignoredLimit` under the patron's lock.
    func setIgnored(_ ignored: Bool, patronID: UUID, bookID: UUID, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            guard try await lockPatronLimits(patronID: patronID, on: connection, logger: logger) != nil else { throw AuthenticationRequired() }
            guard ignored else {
                try await connection.query("DELETE FROM ignored_books WHERE patron_id = \(patronID) AND book_id = \(bookID)", logger: logger)
                return
            }
            var known = false
            for try await _ in try await connection.query("SELECT 1 FROM licenses WHERE book_id = \(bookID)", logger: logger) { known = true }
            guard known else { throw CirculationError.unknownBook(bookID) }
            let rows = try await connection.query(
                "SELECT count(*)::int FROM ignored_books WHERE patron_id = \(patronID) AND book_id <> \(bookID)",
                logger: logger
            )
            for try await count in rows.decode(Int.self) where count >= rules.ignoredLimit {
                throw CirculationError.listLimit(list: "ignored", limit: rules.ignoredLimit)
            }
            try await connection.query(
                "INSERT INTO ignored_books (patron_id, book_id) VALUES (\(patronID), \(bookID)) ON CONFLICT DO NOTHING",
                logger: logger
            )
        }
    }

    /// Locks the patron's row for the rest of the transaction (hiding a book: the count of hidden ones cannot change
    /// under it); nil when the patron is gone. Hiding takes no licence's lock, so no lock order can cross it.
    func lockPatronLimits(patronID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> (loans: Int, holds: Int)? {
        for try await row in try await connection.run(LockPatronLimits.self, patronID, logger: logger) { return try row.decode((Int, Int).self) }
        return nil
    }

    /// Throws when the patron has reached their hold limit, counted after the patron's lock (`LockPatronAndRow`).
}
