import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// Patrons' profiles, reader settings and the deletion of an account, in PostgreSQL.
struct ProfilePostgresRepository: Sendable {
    let client: PostgresClient

    /// The patron's profile in one query, nil for an unknown patron.
    func profile(patronID: UUID, logger: Logger) async throws -> Profile? {
        for try await (barcode, username, email, name, bio, loanLimit, holdLimit, created, lastLogin, loans, holds, favorites, waiting, type, signIn)
            in try await client.execute(ProfileStatement(patronID: patronID), logger: logger)
        {
            return Profile(
                id: patronID,
                barcode: barcode,
                barcodeFormat: "Codabar",
                barcodeCodabar: Barcode.codabar(barcode),
                username: username,
                email: email,
                displayName: name,
                bio: bio,
                favorites: favorites,
                loans: .init(count: loans, limit: loanLimit),
                holds: .init(count: holds, limit: holdLimit),
                waitingForAction: waiting,
                patronType: PatronType(rawValue: type) ?? .adult,
                signIn: signIn,
                createdAt: created,
                lastLoginAt: lastLogin
            )
        }
        return nil
    }

    /// Prepared once per connection: planning this query took five times as long as running it.
    struct ProfileStatement: PostgresPreparedStatement {
        static let sql = """
            SELECT barcode, username, email, display_name, bio, loan_limit, hold_limit, created_at, last_login_at,
                (SELECT count(*)::int FROM patron_books WHERE patron_id = p.id
                    AND state IN ('not_downloaded', 'download_queued', 'downloading', 'download_failed', 'download_completed', 'opened')),
                (SELECT count(*)::int FROM patron_books WHERE patron_id = p.id AND state IN ('waiting_for_loan', 'loan_offered')),
                (SELECT coalesce(array_agg(book_id ORDER BY created_at), '{}') FROM favorites WHERE patron_id = p.id),
                (SELECT count(*)::int FROM notifications WHERE patron_id = p.id AND read_at IS NULL),
                coalesce(patron_type, 'adult'), sign_in
            FROM patrons p WHERE id = $1
            """
        typealias Row = (String, String?, String?, String, String, Int, Int, Date, Date?, Int, Int, [UUID], Int, String, String)

        var patronID: UUID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(patronID)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// Changes what is given (nil keeps the current value). Throws `AuthError.taken` for an e-mail address
    /// another patron has.
    func edit(patronID: UUID, displayName: String?, bio: String?, email: String?, changes: EmailChangeLimits, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            // The patron's row, locked: parallel changes are counted one after the other.
            let current = try await connection.query("SELECT email FROM patrons WHERE id = \(patronID) FOR UPDATE", logger: logger)
            var address: String?
            for try await stored in current.decode(String?.self) { address = stored }
            if let email, email.lowercased() != address?.lowercased() {
                let counts = try await connection.query(
                    """
                    SELECT (SELECT count(*)::int FROM mail_messages WHERE kind = \(MailTemplates.verify) AND patron_id = \(patronID)
                                AND created_at > now() - interval '1 day'),
                           (SELECT count(*)::int FROM mail_messages WHERE kind = \(MailTemplates.verify) AND lower(address) = lower(\(email))
                                AND created_at > now() - interval '1 day')
                    """,
                    logger: logger
                )
                for try await (byPatron, byAddress) in counts.decode((Int, Int).self) {
                    if byPatron >= changes.perPatron || byAddress >= changes.perAddress { throw EmailChangeLimits.Reached() }
                }
            }
            // A confirmation stands only for the address it confirmed.
            try await connection.query(
                """
                UPDATE patrons SET display_name = coalesce(\(displayName), display_name), bio = coalesce(\(bio), bio),
                    email = coalesce(\(email), email),
                    email_verified = CASE WHEN \(email)::text IS NULL OR lower(\(email)) = lower(email_verified) THEN email_verified END
                WHERE id = \(patronID)
                """,
                logger: logger
            )
        }
    }

    /// Returns the patron's loans, cancels their holds (advancing each queue), and erases every row of the patron,
    /// in one transaction.
    func deleteAccount(patronID: UUID, circulation: CirculationPostgresRepository, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            var affected = try await circulation.endCirculation(of: patronID, on: connection, logger: logger)
            let rated = try await connection.query("DELETE FROM ratings WHERE patron_id = \(patronID) RETURNING book_id", logger: logger)
            for try await bookID in rated.decode(UUID.self) { affected.append(bookID) }
            try await connection.query("DELETE FROM patrons WHERE id = \(patronID)", logger: logger)
            try await PatronEventPostgresRepository.forget(patronID: patronID, on: connection, logger: logger)
            try await StaffAuditPostgresRepository.forget(patronID: patronID, on: connection, logger: logger)
            try await CirculationReportPostgresRepository.forget(patronID: patronID, on: connection, logger: logger)
            // Catalog forgets the patron's lists and shelf copy, in the same transaction's outbox.
            let id = patronID.lowercased
            try await OutboxPostgresRepository.enqueue(
                key: "erasure:\(id)",
                path: InternalRoute.patronErasure(patronID).path,
                payload: PatronErasure(patronId: patronID),
                on: connection,
                logger: logger
            )
            try await circulation.releaseCopies(of: Set(affected), on: connection, logger: logger)
        }
    }

    /// The patron's reader settings; the defaults until set.
    /// The reader settings, the defaults when the patron never saved any.
    func settings(patronID: UUID, logger: Logger) async throws -> ReaderSettings {
        try await savedSettings(patronID: patronID, logger: logger) ?? ReaderSettings()
    }

    /// The reader settings as saved, nil when the patron never saved any (the export says so).
    func savedSettings(patronID: UUID, logger: Logger) async throws -> ReaderSettings? {
        let rows = try await client.query("SELECT settings::text FROM settings WHERE patron_id = \(patronID)", logger: logger)
        for try await text in rows.decode(String.self) { return try WireFormat.decoder().decode(ReaderSettings.self, from: Data(text.utf8)) }
        return nil
    }

    func saveSettings(_ settings: ReaderSettings, patronID: UUID, logger: Logger) async throws {
        let json = String(decoding: try WireFormat.encode(settings), as: UTF8.self)
        try await client.query(
            """
            INSERT INTO settings (patron_id, settings) VALUES (\(patronID), \(json)::jsonb)
            ON CONFLICT (patron_id) DO UPDATE SET settings = EXCLUDED.settings
            """,
            logger: logger
        )
    }
}
