import Foundation
import Logging
import ServiceSupport
import Shared

/// Checks credentials (barcode or username with PIN or password) under the login throttle, and issues tokens.
struct Authenticator: Sendable {
    let accounts: AccountPostgresRepository
    let throttle: SignInThrottlePostgresRepository
    let hasher: PasswordHasher
    let keys: AccessTokenKeys
    let accessLifetime: TimeInterval
    let refreshLifetime: TimeInterval
    /// Local accounts (`PATRON_AUTH` names `local`): sign-up, and PINs and passwords checked here.
    var localAccounts = true
    /// The library's ILS, when `PATRON_AUTH` names `sip2`: it checks the cards it issued.
    var ils: ILSSignIn?

    /// The patron whose credentials these are. Throws `AuthError.throttled` when a limit of `SignInThrottlePostgresRepository` refuses
    /// the attempt (before looking the login up, so the same for known and unknown logins) and
    /// `AuthError.badCredentials` otherwise; an unknown login costs a decoy hash, as long as a real check.
    /// `priority` `.background` for a check nobody waits for; a check the bcrypt queue cannot take in time throws
    /// `BcryptWorkers.Busy` and counts as no attempt.
    func authenticate(
        login: String,
        secret: String,
        clientAddress: String?,
        priority: BcryptWorkers.Priority = .first,
        logger: Logger
    ) async throws -> (id: UUID, secretStamp: String) {
        // A check the bcrypt queue cannot take is refused before the throttle's rows are written.
        if let busy = hasher.workers.refusal(priority) { throw busy }
        let attempt = try await throttle.begin(login: login, address: clientAddress, logger: logger)
        let known = login.count <= 254 ? try await accounts.credentials(login: login, logger: logger) : nil
        // A local account signs in here while local accounts are on; any other login is the ILS's to check (an ILS
        // patron never signs in with the PIN kept here, even with the ILS turned off), except a single sign-on
        // patron's card, which has no PIN anywhere.
        if let ils, login.count <= 254, known?.signIn != "oidc", known?.signIn != "local" || !localAccounts {
            let patron: (id: UUID, stamp: String)
            do {
                patron = try await ils.verify(card: login, pin: String(secret.prefix(128)), known: known, priority: priority, logger: logger)
            } catch AuthError.badCredentials {
                throw AuthError.badCredentials
            } catch {
                // Nobody's PIN was tried: the ILS (or bcrypt) could not answer.
                try await throttle.withdraw(attempt, logger: logger)
                throw error
            }
            try await throttle.succeeded(attempt, logger: logger)
            try await accounts.recordLogin(patronID: patron.id, logger: logger)
            return (patron.id, patron.stamp)
        }
        let found = localAccounts && known?.signIn == "local" ? known : nil
        let valid: Bool
        do {
            valid = try await hasher.verify(String(secret.prefix(128)), hash: found?.hash ?? hasher.decoy, priority: priority) && found != nil
        } catch let busy as BcryptWorkers.Busy {
            try await throttle.withdraw(attempt, logger: logger)
            throw busy
        }
        guard valid, let patronID = found?.id, let stamp = found?.stamp else {
            logger.info("Sign-in refused")
            throw AuthError.badCredentials
        }
        try await throttle.succeeded(attempt, logger: logger)
        try await accounts.recordLogin(patronID: patronID, logger: logger)
        return (patronID, stamp)
    }

    /// Opens a session and returns its first tokens.
    func issueTokens(patronID: UUID, logger: Logger) async throws -> TokenResponse {
        let refresh = Self.randomToken()
        let sessionID = try await accounts.openSession(
            patronID: patronID,
            refreshHash: AccountPostgresRepository.hashToken(refresh),
            expiresAt: Date().addingTimeInterval(refreshLifetime),
            logger: logger
        )
        return try await tokens(patronID: patronID, sessionID: sessionID, refresh: refresh, logger: logger)
    }

    /// Rotates a refresh token.
    func refresh(_ token: String, logger: Logger) async throws -> TokenResponse {
        let next = Self.randomToken()
        let (patronID, sessionID) = try await accounts.rotate(
            refreshHash: AccountPostgresRepository.hashToken(token),
            newHash: AccountPostgresRepository.hashToken(next),
            expiresAt: Date().addingTimeInterval(refreshLifetime),
            logger: logger
        )
        return try await tokens(patronID: patronID, sessionID: sessionID, refresh: next, logger: logger)
    }

    private func tokens(patronID: UUID, sessionID: UUID, refresh: String, logger: Logger) async throws -> TokenResponse {
        // The type goes in the token only when it limits what the patron sees (the gateway reads it on every request).
        let type = try await accounts.patronType(patronID: patronID, logger: logger).flatMap { AudienceLimit(patronType: $0)?.rawValue }
        let payload = AccessTokenPayload(patronID: patronID, sessionID: sessionID, issuedAt: Date(), lifetime: accessLifetime, patronType: type)
        return TokenResponse(accessToken: try await keys.sign(payload), expiresIn: Int(accessLifetime), refreshToken: refresh)
    }

    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64URLEncodedString()
    }
}
