import Foundation
import Logging

/// Signing in with the card and PIN the library's ILS issued: the ILS decides (SIP2), and the patron's local row
/// follows its answer (`ILSAccountPostgresRepository.record`). The PIN's bcrypt is kept, not to check the PIN (the ILS
/// does) but so that the secret stamp changes with the PIN (ending the gateway's kept Basic verdicts) and, while the
/// ILS cannot be reached, a card and PIN it accepted within `SIP2_OFFLINE_GRACE` are still let in.
struct ILSSignIn: Sendable {
    let client: SIP2Client
    let accounts: ILSAccountPostgresRepository
    let hasher: PasswordHasher
    let offlineGrace: TimeInterval
    /// The ILS's patron type names and each type's limits.
    let types: PatronTypeRules

    /// The patron and their secret stamp. Throws `AuthError.badCredentials` when the ILS does not know the card or the
    /// PIN is wrong (the caller's throttle counts it), `AuthError.ilsUnavailable` when the ILS cannot answer (no attempt).
    func verify(
        card: String,
        pin: String,
        known: AccountPostgresRepository.StoredCredentials?,
        priority: BcryptWorkers.Priority,
        logger: Logger
    ) async throws -> (id: UUID, stamp: String) {
        let kept = known?.signIn == "sip2" ? known : nil
        let answer: ILSPatron
        do {
            answer = try await client.patron(card: card, pin: pin, logger: logger)
        } catch {
            if let kept, let checked = kept.ilsCheckedAt, Date().timeIntervalSince(checked) < offlineGrace,
                try await hasher.verify(pin, hash: kept.hash, priority: priority)
            {
                logger.notice("Signed in on the ILS's recent word: the ILS cannot be reached", metadata: ["patron.id": "\(kept.id)"])
                return (kept.id, kept.stamp)
            }
            throw AuthError.ilsUnavailable(retryAfter: 30)
        }
        guard answer.validPatron, answer.validPIN else {
            logger.info("Sign-in refused by the ILS", metadata: ["sip2.valid_patron": "\(answer.validPatron)"])
            throw AuthError.badCredentials
        }
        // The same PIN keeps its hash (and the stamp the gateway's verdicts hold); a new one is hashed anew.
        let hash =
            if let kept, try await hasher.verify(pin, hash: kept.hash, priority: priority) { kept.hash } else {
                try await hasher.hash(pin)
            }
        // The ILS's type when it names one (with that type's limits); a patron it names none for keeps theirs.
        let type = answer.patronType.map { types.type(named: $0) }
        guard
            let recorded = try await accounts.record(
                card: card,
                patron: answer,
                type: type,
                limits: types.limits(for: type ?? .adult),
                secretHash: hash,
                logger: logger
            )
        else {
            logger.warning("The ILS's card number is a local account's barcode: not signed in", metadata: ["sip2.card": "\(SIP2Client.masked(card))"])
            throw AuthError.cardHeldLocally
        }
        if let reason = answer.blockReason {
            logger.info("The ILS blocks this patron's borrowing", metadata: ["patron.id": "\(recorded.id)", "reason": "\(reason)"])
        }
        return recorded
    }
}
