import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// The local rows of patrons the library's ILS vouches for: made at their first sign-in, brought up to date at each.
struct ILSAccountPostgresRepository: Sendable {
    let client: PostgresClient

    /// Makes or updates the row of the ILS's patron with card `card`: its name and block as the ILS says now, its type
    /// and that type's limits when the ILS names a type (`type` nil: a new patron is an adult, a known one keeps theirs),
    /// the PIN's bcrypt; an address the ILS gives is kept for a new patron only (a patron may change theirs here), and
    /// counts as confirmed unless another patron confirmed it. Returns the patron and their secret stamp; nil when the
    /// card number is a local account's barcode (never taken over).
    func record(
        card: String,
        patron: ILSPatron,
        type: PatronType?,
        limits: (loans: Int, holds: Int),
        secretHash: String,
        logger: Logger
    ) async throws -> (
        id: UUID, stamp: String
    )? {
        do {
            return try await record(card, patron, type, limits, secretHash, confirmingEmail: true, logger: logger)
        } catch let error as PSQLError where error.isUniqueViolation {
            // Another patron confirmed the same address a moment before: this one's stays unconfirmed.
            return try await record(card, patron, type, limits, secretHash, confirmingEmail: false, logger: logger)
        }
    }

    private func record(
        _ card: String,
        _ patron: ILSPatron,
        _ type: PatronType?,
        _ limits: (loans: Int, holds: Int),
        _ secretHash: String,
        confirmingEmail: Bool,
        logger: Logger
    ) async throws -> (id: UUID, stamp: String)? {
        let confirmed = confirmingEmail ? patron.email : nil
        let rows = try await client.query(
            """
            INSERT INTO patrons (id, barcode, email, email_verified, display_name, secret_hash, loan_limit, hold_limit,
                                 sign_in, ils_block, ils_checked_at, patron_type)
            SELECT \(UUID()), \(card), \(patron.email),
                   CASE WHEN NOT EXISTS (SELECT 1 FROM patrons WHERE lower(email_verified) = lower(\(confirmed))) THEN \(confirmed) END,
                   \(patron.name ?? ""), \(secretHash), \(limits.loans), \(limits.holds), 'sip2', \(patron.blockReason), now(),
                   \(type?.rawValue)
            ON CONFLICT (barcode) DO UPDATE SET
                display_name = coalesce(nullif(EXCLUDED.display_name, ''), patrons.display_name),
                secret_hash = EXCLUDED.secret_hash, ils_block = EXCLUDED.ils_block, ils_checked_at = now(),
                patron_type = coalesce(EXCLUDED.patron_type, patrons.patron_type),
                loan_limit = CASE WHEN EXCLUDED.patron_type IS NULL THEN patrons.loan_limit ELSE EXCLUDED.loan_limit END,
                hold_limit = CASE WHEN EXCLUDED.patron_type IS NULL THEN patrons.hold_limit ELSE EXCLUDED.hold_limit END
            WHERE patrons.sign_in = 'sip2'
            RETURNING id, \(unescaped: AccountPostgresRepository.secretStampSQL)
            """,
            logger: logger
        )
        for try await (id, stamp) in rows.decode((UUID, String).self) { return (id, stamp) }
        return nil
    }
}
