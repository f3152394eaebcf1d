import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import Shared

/// Patrons as staff see them: found by the start of a card number, username or email; one patron's books; blocks and a
/// new secret, each recorded in the staff audit in the change's transaction.
struct PatronDirectoryPostgresRepository: Sendable {
    let client: PostgresClient

    struct Summary: Encodable, Sendable {
        let id: UUID
        let cardNumber: String
        let username: String?
        let email: String?
        let createdAt: Date
        let lastLoginAt: Date?
        let blockedReason: String?
        let blockedAt: Date?
        /// `local` or `sip2`: how the patron signs in.
        let signIn: String
        /// What the library's ILS said stops the patron's borrowing at their last sign-in (staff cannot lift it here).
        let ilsBlock: String?
        let patronType: PatronType
        let loanLimit: Int
        let holdLimit: Int
        let loans: Int
        let holds: Int
        let offers: Int
    }

    struct Book: Encodable, Sendable {
        let bookId: UUID
        let title: String?
        let state: String
        let dueAt: Date?
        let offerExpiresAt: Date?
        let suspendedUntil: Date?
    }

    /// A summary's columns, with the patron's counts (the loan states are the machine's own names, not input).
    private static let columns = """
        p.id, p.barcode, p.username, p.email, p.created_at, p.last_login_at, p.blocked_reason, p.blocked_at,
        p.sign_in, p.ils_block, coalesce(p.patron_type, 'adult'), p.loan_limit, p.hold_limit,
        (SELECT count(*)::int FROM patron_books b WHERE b.patron_id = p.id
            AND b.state IN (\(BookState.onLoan.map { "'\($0.rawValue)'" }.sorted().joined(separator: ", ")))),
        (SELECT count(*)::int FROM patron_books b WHERE b.patron_id = p.id AND b.state = 'waiting_for_loan'),
        (SELECT count(*)::int FROM patron_books b WHERE b.patron_id = p.id AND b.state = 'loan_offered')
        """

    private typealias SummaryRow = (UUID, String, String?, String?, Date, Date?, String?, Date?, String, String?, String, Int, Int, Int, Int, Int)

    private static func summary(_ row: SummaryRow) -> Summary {
        Summary(
            id: row.0,
            cardNumber: row.1,
            username: row.2,
            email: row.3,
            createdAt: row.4,
            lastLoginAt: row.5,
            blockedReason: row.6,
            blockedAt: row.7,
            signIn: row.8,
            ilsBlock: row.9,
            patronType: PatronType(rawValue: row.10) ?? .adult,
            loanLimit: row.11,
            holdLimit: row.12,
            loans: row.13,
            holds: row.14,
            offers: row.15
        )
    }

    /// Patrons whose card number, username or email starts with `prefix` (case-insensitive), in id order after `after`.
    func search(prefix: String, after: UUID?, limit: Int, logger: Logger) async throws -> [Summary] {
        let pattern = Self.likePrefix(prefix.lowercased())
        let rows = try await client.query(
            """
            SELECT \(unescaped: Self.columns) FROM patrons p
            WHERE (p.barcode LIKE \(pattern) OR lower(p.username) LIKE \(pattern) OR lower(p.email) LIKE \(pattern))
              AND (\(after)::uuid IS NULL OR p.id > \(after))
            ORDER BY p.id LIMIT \(limit)
            """,
            logger: logger
        )
        var found: [Summary] = []
        for try await row in rows.decode(SummaryRow.self) { found.append(Self.summary(row)) }
        return found
    }

    func patron(_ id: UUID, logger: Logger) async throws -> Summary? {
        let rows = try await client.query("SELECT \(unescaped: Self.columns) FROM patrons p WHERE p.id = \(id)", logger: logger)
        for try await row in rows.decode(SummaryRow.self) { return Self.summary(row) }
        return nil
    }

    /// The patron's loans, holds and offers (not saved or hidden books), with titles.
    func books(of patronID: UUID, logger: Logger) async throws -> [Book] {
        let rows = try await client.query(
            """
            SELECT b.book_id, l.title, b.state, b.due_at, b.offer_expires_at, b.suspended_until FROM patron_books b
            LEFT JOIN licenses l ON l.book_id = b.book_id
            WHERE b.patron_id = \(patronID) AND b.state <> 'saved' ORDER BY b.state, l.title
            """,
            logger: logger
        )
        var books: [Book] = []
        for try await (book, title, state, due, offer, suspended) in rows.decode((UUID, String?, String, Date?, Date?, Date?).self) {
            books.append(Book(bookId: book, title: title, state: state, dueAt: due, offerExpiresAt: offer, suspendedUntil: suspended))
        }
        return books
    }

    /// Sets the patron's type and its limits; false when there is no such patron.
    func setType(_ type: PatronType, limits: (loans: Int, holds: Int), patronID: UUID, staff: String, logger: Logger) async throws -> Bool {
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                UPDATE patrons SET patron_type = \(type.rawValue), loan_limit = \(limits.loans), hold_limit = \(limits.holds)
                WHERE id = \(patronID) RETURNING id
                """,
                logger: logger
            )
            var found = false
            for try await _ in rows { found = true }
            guard found else { return false }
            try await StaffAuditPostgresRepository.record(
                "patron-type",
                staff: staff,
                patronID: patronID,
                detail: type.rawValue,
                on: connection,
                logger: logger
            )
            return true
        }
    }

    /// Blocks the patron (`reason`) or lifts the block (nil); false when there is no such patron.
    func setBlock(_ reason: String?, patronID: UUID, staff: String, logger: Logger) async throws -> Bool {
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                UPDATE patrons SET blocked_reason = \(reason), blocked_at = CASE WHEN \(reason)::text IS NULL THEN NULL ELSE now() END
                WHERE id = \(patronID) RETURNING id
                """,
                logger: logger
            )
            var found = false
            for try await _ in rows { found = true }
            guard found else { return false }
            try await StaffAuditPostgresRepository.record(
                reason == nil ? "unblock" : "block",
                staff: staff,
                patronID: patronID,
                detail: reason ?? "",
                on: connection,
                logger: logger
            )
            return true
        }
    }

    /// Sets a new secret hash, ends every session and revokes every sync key; false when there is no such patron.
    func resetSecret(patronID: UUID, to hash: String, kind: String, staff: String, logger: Logger) async throws -> Bool {
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query("SELECT sign_in FROM patrons WHERE id = \(patronID) FOR UPDATE", logger: logger)
            var method: String?
            for try await signIn in rows.decode(String.self) { method = signIn }
            guard let method else { return false }
            // A card the ILS issued has its PIN there: one set here would be replaced at the next sign-in.
            guard method == "local" else { throw AuthError.secretHeldByILS }
            try await connection.query("UPDATE patrons SET secret_hash = \(hash) WHERE id = \(patronID)", logger: logger)
            try await connection.query(
                "UPDATE sessions SET revoked_at = now() WHERE patron_id = \(patronID) AND revoked_at IS NULL",
                logger: logger
            )
            try await SyncKeyPostgresRepository.revokeAll(patronID: patronID, on: connection, logger: logger)
            try await StaffAuditPostgresRepository.record("reset-\(kind)", staff: staff, patronID: patronID, on: connection, logger: logger)
            return true
        }
    }

    /// `text` as a LIKE pattern matching what starts with it (its own `%`, `_` and `\` matched as themselves).
    static func likePrefix(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
    }
}
