import Foundation
import Hummingbird
import Logging
import ServiceSupport
import Shared

/// A signed-in patron proving they know their PIN or password again, before a change that outlives the session (a
/// new secret, a KOReader sync key): a stolen token alone cannot make a credential of its own. Guesses are throttled
/// like sign-ins (the login `secret-change:<patron>`, from the caller's address).
struct CurrentSecretCheck: Sendable {
    let accounts: AccountPostgresRepository
    let hasher: PasswordHasher
    let throttle: SignInThrottlePostgresRepository
    let token: ServiceToken

    /// The stored hash `secret` matched; 403 `wrong-current-secret` when it is not the patron's secret.
    func verify(_ secret: String, patronID: UUID, request: Request, logger: Logger) async throws -> String {
        guard let stored = try await accounts.secretHash(patronID: patronID, logger: logger) else { throw AuthenticationRequired() }
        let attempt = try await throttle.begin(
            login: "secret-change:\(patronID.lowercased)",
            address: Caller(request: request, token: token).clientAddress,
            logger: logger
        )
        guard try await hasher.verify(String(secret.prefix(128)), hash: stored) else {
            throw Problem(status: 403, slug: "wrong-current-secret", title: "Forbidden", detail: "The current PIN or password is wrong")
        }
        try await throttle.succeeded(attempt, logger: logger)
        return stored
    }
}
