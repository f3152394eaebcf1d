import Crypto
import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// Patron accounts, sessions and refresh tokens in PostgreSQL.
struct AccountPostgresRepository: Sendable {
    let client: PostgresClient

    /// Stores a new patron. Throws `AuthError.taken` when the username or barcode is registered already, or the email
    /// is another account's confirmed address (an address only claimed elsewhere does not count).
    func create(_ account: NewAccount, secretHash: String, loanLimit: Int, holdLimit: Int, logger: Logger) async throws -> UUID {
        let id = UUID()
        do {
            let inserted = try await client.query(
                """
                INSERT INTO patrons (id, barcode, username, email, display_name, secret_hash, loan_limit, hold_limit)
                SELECT \(id), \(account.barcode), \(account.username), \(account.email), \(account.displayName), \(secretHash),
                       \(loanLimit), \(holdLimit)
                WHERE \(account.email)::text IS NULL OR NOT EXISTS (SELECT 1 FROM patrons WHERE lower(email_verified) = lower(\(account.email)))
                RETURNING 1
                """,
                logger: logger
            )
            var created = false
            for try await _ in inserted { created = true }
            guard created else { throw AuthError.taken(field: "email") }
        } catch let error as PSQLError where error.isUniqueViolation {
            let constraint = error.serverInfo?[.constraintName] ?? ""
            throw AuthError.taken(field: constraint.contains("username") ? "username" : "barcode")
        }
        return id
    }

    /// A patron's stored credentials, as a sign-in sees them.
    struct StoredCredentials: Sendable {
        let id: UUID
        let hash: String
        let stamp: String
        /// How the patron signs in: `local`, `sip2` or `oidc`.
        let signIn: String
        /// When the library's ILS last accepted the card and PIN (`sip2`).
        let ilsCheckedAt: Date?
    }

    /// The credentials of the patron whose barcode or username is `login` (a barcode first).
    func credentials(login: String, logger: Logger) async throws -> StoredCredentials? {
        let rows = try await client.query(
            """
            SELECT id, secret_hash, \(unescaped: Self.secretStampSQL), sign_in, ils_checked_at FROM patrons
            WHERE barcode = \(login) OR lower(username) = lower(\(login)) ORDER BY barcode = \(login) DESC LIMIT 1
            """,
            logger: logger
        )
        for try await (id, hash, stamp, signIn, checkedAt) in rows.decode((UUID, String, String, String, Date?).self) {
            return StoredCredentials(id: id, hash: hash, stamp: stamp, signIn: signIn, ilsCheckedAt: checkedAt)
        }
        return nil
    }

    /// A digest of the stored secret hash: it changes with every new PIN or password, and says nothing of either.
    static let secretStampSQL = "left(md5(secret_hash), 16)"

    /// The patron's type (`adult`, `teen`, `child`; nil: none set, an adult), as tokens and Basic verdicts carry it.
    func patronType(patronID: UUID, logger: Logger) async throws -> String? {
        for try await type in try await client.query("SELECT patron_type FROM patrons WHERE id = \(patronID)", logger: logger).decode(String?.self) {
            return type
        }
        return nil
    }

    /// Whether the patron still exists (an account can be deleted while a gateway still holds its token).
    func exists(patronID: UUID, logger: Logger) async throws -> Bool {
        for try await _ in try await client.run(PatronExists.self, patronID, logger: logger) { return true }
        return false
    }

    /// $1 patron; prepared (`PreparedSQL`): every change a patron makes runs it first.
    enum PatronExists: PreparedSQL {
        static let sql = "SELECT 1 FROM patrons WHERE id = $1::uuid"
    }

    /// How the patron signs in (`local`, `sip2`, `oidc`); nil for no such patron.
    func signInMethod(patronID: UUID, logger: Logger) async throws -> String? {
        for try await method in try await client.query("SELECT sign_in FROM patrons WHERE id = \(patronID)", logger: logger).decode(String.self) {
            return method
        }
        return nil
    }

    func recordLogin(patronID: UUID, logger: Logger) async throws {
        try await client.query("UPDATE patrons SET last_login_at = now() WHERE id = \(patronID)", logger: logger)
    }

    /// The owner of a sign-in session still open; nil for a closed or unknown one (deleted with its account).
    func openSessionOwner(_ id: UUID, logger: Logger) async throws -> UUID? { try await openSessionOwners([id], logger: logger)[id] }

    /// The owners of those of `ids` that are open sessions, by session: one statement, for one session or the gateway's
    /// batch.
    func openSessionOwners(_ ids: [UUID], logger: Logger) async throws -> [UUID: UUID] {
        var owners: [UUID: UUID] = [:]
        for try await (id, owner) in try await client.query(
            "SELECT id, patron_id FROM sessions WHERE id = ANY(\(ids)) AND revoked_at IS NULL",
            logger: logger
        ).decode((UUID, UUID).self) { owners[id] = owner }
        return owners
    }

    /// A digest of the patron's stored secret hash, which changes with every new PIN or password; nil when the
    /// account is gone.
    func secretStamp(patronID: UUID, logger: Logger) async throws -> String? {
        try await secretStamps(patronIDs: [patronID], logger: logger)[patronID]
    }

    /// The secret stamps (`secretStamp`) of those of `patronIDs` whose accounts exist, by patron: one statement, for one
    /// patron or the gateway's batch.
    func secretStamps(patronIDs: [UUID], logger: Logger) async throws -> [UUID: String] {
        var stamps: [UUID: String] = [:]
        for try await (id, stamp) in try await client.query(
            "SELECT id, \(unescaped: Self.secretStampSQL) FROM patrons WHERE id = ANY(\(patronIDs))",
            logger: logger
        ).decode((UUID, String).self) { stamps[id] = stamp }
        return stamps
    }

    /// Opens a session with its first refresh token.
    func openSession(patronID: UUID, refreshHash: String, expiresAt: Date, logger: Logger) async throws -> UUID {
        let sessionID = UUID()
        try await client.transaction(logger: logger) { connection in
            try await connection.query("INSERT INTO sessions (id, patron_id) VALUES (\(sessionID), \(patronID))", logger: logger)
            try await connection.query(
                "INSERT INTO refresh_tokens (token_hash, session_id, expires_at) VALUES (\(refreshHash), \(sessionID), \(expiresAt))",
                logger: logger
            )
        }
        return sessionID
    }

    /// Exchanges a refresh token for a new one in the same session. A token used twice revokes its session.
    func rotate(refreshHash: String, newHash: String, expiresAt: Date, logger: Logger) async throws -> (patronID: UUID, sessionID: UUID) {
        let outcome: Result<(UUID, UUID), AuthError> = try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                SELECT s.patron_id, s.id, r.used_at IS NOT NULL, s.revoked_at IS NOT NULL, r.expires_at < now()
                FROM refresh_tokens r JOIN sessions s ON s.id = r.session_id
                WHERE r.token_hash = \(refreshHash) FOR UPDATE OF r, s
                """,
                logger: logger
            )
            var found: (UUID, UUID, Bool, Bool, Bool)?
            for try await row in rows.decode((UUID, UUID, Bool, Bool, Bool).self) { found = row }
            guard let (patronID, sessionID, used, revoked, expired) = found, !revoked, !expired else {
                return .failure(.invalidRefreshToken)
            }
            if used {
                try await connection.query("UPDATE sessions SET revoked_at = now() WHERE id = \(sessionID)", logger: logger)
                return .failure(.refreshTokenReused)
            }
            try await connection.query("UPDATE refresh_tokens SET used_at = now() WHERE token_hash = \(refreshHash)", logger: logger)
            try await connection.query(
                "INSERT INTO refresh_tokens (token_hash, session_id, expires_at) VALUES (\(newHash), \(sessionID), \(expiresAt))",
                logger: logger
            )
            return .success((patronID, sessionID))
        }
        switch outcome {
        case .success(let (patronID, sessionID)): return (patronID, sessionID)
        case .failure(let error): throw error
        }
    }

    /// Revokes the session of a refresh token. Returns its patron, or nil when the token is unknown.
    func revoke(refreshHash: String, logger: Logger) async throws -> UUID? {
        let rows = try await client.query(
            """
            UPDATE sessions SET revoked_at = coalesce(revoked_at, now())
            WHERE id = (SELECT session_id FROM refresh_tokens WHERE token_hash = \(refreshHash)) RETURNING patron_id
            """,
            logger: logger
        )
        for try await patronID in rows.decode(UUID.self) { return patronID }
        return nil
    }

    /// Counts a sign-up from `address` against `perHour`, under a lock on the address so that parallel sign-ups are
    /// counted one after the other. Returns the seconds to wait when the address has used its hour's sign-ups.
    func reserveSignup(address clientAddress: String, perHour: Int, logger: Logger) async throws -> Int? {
        let address = IPAddressBlock.limitKey(clientAddress)
        return try await client.transaction(logger: logger) { connection -> Int? in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('signup:' || \(address)))", logger: logger)
            let rows = try await connection.query(
                """
                SELECT count(*)::int, ceil(extract(epoch FROM min(attempted_at) + interval '1 hour' - now()))::int FROM signup_attempts
                WHERE address = \(address) AND attempted_at > now() - interval '1 hour'
                """,
                logger: logger
            )
            for try await (count, wait) in rows.decode((Int, Int?).self) where count >= perHour { return max(1, wait ?? 3600) }
            try await connection.query("INSERT INTO signup_attempts (address) VALUES (\(address))", logger: logger)
            return nil
        }
    }

    /// Forgets sign-up attempts older than an hour.
    func sweepSignups(logger: Logger) async throws {
        try await client.query("DELETE FROM signup_attempts WHERE attempted_at < now() - interval '1 hour'", logger: logger)
    }

    /// The stored hash of the patron's secret (PIN or password), nil for an unknown patron.
    func secretHash(patronID: UUID, logger: Logger) async throws -> String? {
        for try await hash in try await client.query("SELECT secret_hash FROM patrons WHERE id = \(patronID)", logger: logger).decode(String.self) {
            return hash
        }
        return nil
    }

    /// Replaces the patron's secret, if it is still `currentHash` (a concurrent change wins once), ends every
    /// session but `keeping` and revokes every sync key. Returns false when the secret changed meanwhile.
    func changeSecret(patronID: UUID, from currentHash: String, to newHash: String, keeping session: UUID?, logger: Logger) async throws -> Bool {
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                "UPDATE patrons SET secret_hash = \(newHash) WHERE id = \(patronID) AND secret_hash = \(currentHash) RETURNING id",
                logger: logger
            )
            var changed = false
            for try await _ in rows { changed = true }
            guard changed else { return false }
            try await connection.query(
                """
                UPDATE sessions SET revoked_at = now()
                WHERE patron_id = \(patronID) AND revoked_at IS NULL AND (\(session)::uuid IS NULL OR id <> \(session))
                """,
                logger: logger
            )
            try await SyncKeyPostgresRepository.revokeAll(patronID: patronID, on: connection, logger: logger)
            return true
        }
    }

    /// Ends every open session of the patron and revokes their sync keys; returns how many sessions ended.
    func revokeAllSessions(patronID: UUID, logger: Logger) async throws -> Int {
        try await client.transaction(logger: logger) { connection in
            var count = 0
            for try await _ in try await connection.query(
                "UPDATE sessions SET revoked_at = now() WHERE patron_id = \(patronID) AND revoked_at IS NULL RETURNING id",
                logger: logger
            ) { count += 1 }
            try await SyncKeyPostgresRepository.revokeAll(patronID: patronID, on: connection, logger: logger)
            return count
        }
    }

    static func hashToken(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
