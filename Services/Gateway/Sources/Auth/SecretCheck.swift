import Foundation
import Logging
import ServiceSupport
import Shared

/// Whether the secret a kept Basic verdict was given with is still the patron's: the stamp of their current secret is
/// asked of patron (one row, no bcrypt) and remembered for `cacheFor` (`SESSION_CHECK_TTL`). A PIN or password changed
/// through another gateway replica thus stops the old one within that time, as a revoked session's token stops; one
/// changed through this gateway stops at once (`forget`). When patron cannot answer, the verdict stands.
///
/// A patron still browsing is asked about again in the background once their answer is past half its lifetime
/// (`FreshAnswers`), so their requests do not wait for patron, however busy it is (issue 49's crowd: a crowd of first
/// sign-ins made these checks the verified patrons' slowest requests); no answer older than `cacheFor` is used. Those
/// renewals are asked of patron together (`AskedInBatches`), as `SessionCheck`'s are.
final class SecretCheck: Sendable {
    let patron: InternalClient
    /// By patron: the stamp of their current secret (nil: the account is gone).
    private let stamps: FreshAnswers<UUID, String?>
    private let renewals: AskedInBatches<UUID, String?>

    init(patron: InternalClient, cacheFor: TimeInterval) {
        self.patron = patron
        stamps = FreshAnswers(lifetime: cacheFor)
        renewals = .renewals(of: patron, .secretStamps, label: "gateway.secret-checks") { (reply: SecretStamps) in reply.stamps }
    }

    /// True when `stamp` (what the verdict was given with) is the patron's current one, or cannot be checked now.
    func holds(_ stamp: String?, for patronID: UUID, logger: Logger) async -> Bool {
        if let known = known(stamp, for: patronID) { return known }
        // nil: patron could not answer; .some(nil): the account is gone.
        let current: String?? = await stamps.answer(
            for: patronID,
            ask: { [patron] in
                do {
                    return try await patron.get(InternalRoute.secretStamp(patronID).path, as: SecretStamp.self, logger: logger).stamp
                } catch {
                    logger.warning("Secret check unavailable; keeping the Basic verdict", metadata: ["error": "\(error)"])
                    return nil
                }
            },
            renew: renewal(of: patronID)
        )
        guard let current else { return true }
        return current == stamp
    }

    /// `holds` from the stamp remembered, without waiting (renewed in the background when due); nil when there is none
    /// yet (`holds` asks patron).
    func known(_ stamp: String?, for patronID: UUID) -> Bool? {
        guard let stamp else { return true }
        guard let (current, renewDue) = stamps.kept(patronID) else { return nil }
        if renewDue { stamps.renew(patronID, with: renewal(of: patronID)) }
        return current == stamp
    }

    private func renewal(of patronID: UUID) -> @Sendable () async -> String?? { { [renewals] in await renewals.value(for: patronID) } }

    /// Forgets the patron's stamp: it is asked again at their next request.
    func forget(patron patronID: UUID) { stamps.forget(patronID) }
}
