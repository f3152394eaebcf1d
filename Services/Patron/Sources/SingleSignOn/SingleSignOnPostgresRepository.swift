import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// Single sign-on's rows: sign-ins under way (kept ten minutes, used once) and patrons' identities at the provider.
struct SingleSignOnPostgresRepository: Sendable {
    let client: PostgresClient

    /// A sign-in under way, as its return from the provider finds it.
    struct Pending: Sendable, Equatable {
        var nonce: String
        var codeVerifier: String
        var appRedirect: String
        var appState: String?
        /// The device a sync key is made for at the return, instead of a session; nil for a sign-in.
        var syncKeyDevice: String? = nil
    }

    /// Sign-ins one address may have under way at once: a person needs one or two; a flood of starts, each a row for
    /// `lifetime`, stops here.
    static let perAddress = 20

    /// Keeps a sign-in under way for `lifetime`, under its state's hash, unless `address` has `perAddress` under way
    /// (then the seconds until its oldest expires); clears those that expired.
    func begin(stateHash: String, _ pending: Pending, address: String?, lifetime: TimeInterval, logger: Logger) async throws -> Int? {
        try await client.query("DELETE FROM oidc_sign_ins WHERE expires_at < now()", logger: logger)
        let key = address.map(IPAddressBlock.limitKey)
        return try await client.transaction(logger: logger) { connection -> Int? in
            if let key {
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext('oidc:' || \(key)))", logger: logger)
                let rows = try await connection.query(
                    """
                    SELECT count(*)::int, ceil(extract(epoch FROM min(expires_at) - now()))::int FROM oidc_sign_ins
                    WHERE client_address = \(key) AND expires_at > now()
                    """,
                    logger: logger
                )
                for try await (count, wait) in rows.decode((Int, Int?).self) where count >= Self.perAddress { return max(1, wait ?? 60) }
            }
            try await connection.query(
                """
                INSERT INTO oidc_sign_ins (state_hash, nonce, code_verifier, app_redirect, app_state, sync_key_device, client_address,
                                           expires_at)
                VALUES (\(stateHash), \(pending.nonce), \(pending.codeVerifier), \(pending.appRedirect), \(pending.appState),
                        \(pending.syncKeyDevice), \(key), now() + make_interval(secs => \(lifetime)))
                """,
                logger: logger
            )
            return nil
        }
    }

    /// The sign-in under way with this state, taken (a state is good once) unless it expired; nil otherwise.
    func take(stateHash: String, logger: Logger) async throws -> Pending? {
        let rows = try await client.query(
            """
            DELETE FROM oidc_sign_ins WHERE state_hash = \(stateHash)
            RETURNING nonce, code_verifier, app_redirect, app_state, sync_key_device, expires_at > now()
            """,
            logger: logger
        )
        for try await (nonce, verifier, redirect, appState, device, live) in rows.decode((String, String, String, String?, String?, Bool).self) {
            return live ? Pending(nonce: nonce, codeVerifier: verifier, appRedirect: redirect, appState: appState, syncKeyDevice: device) : nil
        }
        return nil
    }

    /// The patron who is `subject` at `issuer`, made at their first sign-in (a new card number, no PIN: they sign in
    /// through the provider) and brought up to date at each: the name the provider gives, and the type and its limits
    /// when the provider names one (`type` nil: a new patron is an adult, a known one keeps theirs). The provider's
    /// address is kept for a new patron only, confirmed when the provider says it verified it and no other patron
    /// confirmed it. Returns the patron and their secret stamp.
    func link(
        issuer: String,
        subject: String,
        token: IDToken,
        type: PatronType?,
        limits: (loans: Int, holds: Int),
        logger: Logger
    ) async throws -> (id: UUID, stamp: String) {
        var confirming = token.emailVerified
        // Two first sign-ins of one subject at once: the second finds the identity the first made.
        for attempt in 0..<3 {
            do {
                return try await client.transaction(logger: logger) { connection in
                    try await link(connection, issuer, subject, token, type, limits, confirmingEmail: confirming, logger: logger)
                }
            } catch let error as PSQLError where error.isUniqueViolation && attempt < 2 {
                if error.serverInfo?[.constraintName]?.contains("email") == true { confirming = false }
            }
        }
        throw AuthError.singleSignOnFailed("The sign-in could not be recorded")
    }

    private func link(
        _ connection: PostgresConnection,
        _ issuer: String,
        _ subject: String,
        _ token: IDToken,
        _ type: PatronType?,
        _ limits: (loans: Int, holds: Int),
        confirmingEmail: Bool,
        logger: Logger
    ) async throws -> (id: UUID, stamp: String) {
        let known = try await connection.query(
            """
            UPDATE patrons SET
                display_name = coalesce(nullif(\(token.name ?? ""), ''), display_name),
                patron_type = coalesce(\(type?.rawValue), patron_type),
                loan_limit = CASE WHEN \(type?.rawValue)::text IS NULL THEN loan_limit ELSE \(limits.loans) END,
                hold_limit = CASE WHEN \(type?.rawValue)::text IS NULL THEN hold_limit ELSE \(limits.holds) END,
                last_login_at = now()
            WHERE id = (SELECT patron_id FROM patron_identities WHERE issuer = \(issuer) AND subject = \(subject))
            RETURNING id, \(unescaped: AccountPostgresRepository.secretStampSQL)
            """,
            logger: logger
        )
        for try await (id, stamp) in known.decode((UUID, String).self) { return (id, stamp) }
        let id = UUID()
        // No PIN: a hash no secret matches, unique to the patron (the secret stamp is taken from it).
        let secretHash = "!oidc:" + Authenticator.randomToken()
        let confirmed = confirmingEmail ? token.email : nil
        try await connection.query(
            """
            INSERT INTO patrons (id, barcode, email, email_verified, display_name, secret_hash, loan_limit, hold_limit,
                                 sign_in, patron_type, last_login_at)
            SELECT \(id), \(Barcode.generate()), \(token.email),
                   CASE WHEN NOT EXISTS (SELECT 1 FROM patrons WHERE lower(email_verified) = lower(\(confirmed))) THEN \(confirmed) END,
                   \(token.name ?? ""), \(secretHash), \(limits.loans), \(limits.holds), 'oidc', \((type ?? .adult).rawValue), now()
            """,
            logger: logger
        )
        try await connection.query(
            "INSERT INTO patron_identities (issuer, subject, patron_id) VALUES (\(issuer), \(subject), \(id))",
            logger: logger
        )
        let stamp = try await connection.query(
            "SELECT \(unescaped: AccountPostgresRepository.secretStampSQL) FROM patrons WHERE id = \(id)",
            logger: logger
        )
        for try await value in stamp.decode(String.self) { return (id, value) }
        throw AuthError.singleSignOnFailed("The sign-in could not be recorded")
    }
}
