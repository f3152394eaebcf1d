import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import Shared

/// PostgreSQL as circulation's store: a change's transaction is a database transaction, its locks row locks
/// (`LockLicense`, then `LockPatronAndRow`), its limits counted in the statements that write.
extension CirculationPostgresRepository: CirculationStore {
    func transaction<T: Sendable>(logger: Logger, _ body: (any CirculationTransaction) async throws -> T) async throws -> T {
        try await client.transaction(logger: logger) { connection in
            try await body(Transaction(repository: self, connection: connection, logger: logger))
        }
    }

    /// One change's reads and writes on its connection.
    struct Transaction: CirculationTransaction {
        let repository: CirculationPostgresRepository
        let connection: PostgresConnection
        let logger: Logger

        func lockLicense(_ bookID: UUID) async throws -> LicenseRow? {
            try await repository.lockLicense(bookID, on: connection, logger: logger)
        }

        func lockPatron(_ patronID: UUID, bookID: UUID) async throws -> LockedPatron? {
            try await repository.lockPatronAndRow(patronID: patronID, bookID: bookID, on: connection, logger: logger)
        }

        func holdCount(patronID: UUID) async throws -> Int {
            try await count(
                "SELECT count(*)::int FROM patron_books WHERE patron_id = \(patronID) AND state IN ('waiting_for_loan', 'loan_offered')"
            )
        }

        func savedCount(patronID: UUID) async throws -> Int {
            try await count("SELECT count(*)::int FROM patron_books WHERE patron_id = \(patronID) AND state = 'saved'")
        }

        private func count(_ query: PostgresQuery) async throws -> Int {
            for try await count in try await connection.query(query, logger: logger).decode(Int.self) { return count }
            return 0
        }

        func write(
            _ next: BookState,
            after event: BookEvent,
            exists: Bool,
            limit: WriteLimit,
            patronID: UUID,
            bookID: UUID
        ) async throws -> (row: PatronBookRow?, stamp: Int64?) {
            try await repository.write(
                next,
                after: event,
                exists: exists,
                limit: limit,
                patronID: patronID,
                bookID: bookID,
                on: connection,
                logger: logger
            )
        }

        func loanCounts(patronID: UUID, bookID: UUID) async throws -> (loans: Int, occupied: Int) {
            let rows = try await connection.run(
                CirculationPostgresRepository.LoanCounts.self,
                patronID,
                CirculationPostgresRepository.loanStates,
                bookID,
                CirculationPostgresRepository.occupyingStates,
                logger: logger
            )
            for try await row in rows { return try row.decode((Int, Int).self) }
            return (0, 0)
        }

        func promoteHolds(bookID: UUID, license: LicenseRow) async throws {
            try await repository.promoteHolds(bookID: bookID, copies: license.copies, openAccess: license.openAccess, on: connection, logger: logger)
        }

        func notify(_ kind: NotificationKind, patronID: UUID, bookID: UUID) async throws {
            try await NotificationPostgresRepository.record(
                kind,
                patronID: patronID,
                bookID: bookID,
                reference: "\(Date().timeIntervalSince1970)",
                on: connection,
                logger: logger
            )
        }

        func status(patronID: UUID, bookID: UUID) async throws -> BookStatus {
            try await repository.status(patronID: patronID, bookID: bookID, on: connection, logger: logger)
        }
    }
}
