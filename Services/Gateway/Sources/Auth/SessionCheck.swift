import Foundation
import Logging
import ServiceSupport
import Shared

/// Whether the session an access token belongs to is still open and the token's patron's, asked of patron and
/// remembered for `cacheFor` (`SESSION_CHECK_TTL`): a token of a session that was logged out, revoked or deleted with
/// its account stops working within that time instead of at its expiry, and a token that names another patron's
/// session is refused. When patron cannot answer, a validly signed token is accepted (signed-in browsing survives a
/// patron outage; docs/SECURITY.md, "Sessions", says what that costs and why it was chosen). A session in steady use is
/// asked about again in the background once its answer is past half its lifetime (`FreshAnswers`): its requests do not
/// wait for patron. Those renewals are asked of patron together (`AskedInBatches`), one request and one statement for
/// all the sessions falling due within 100 ms, not one each.
final class SessionCheck: Sendable {
    let patron: InternalClient
    /// By session: whether it is open, and whose it is.
    private let answers: FreshAnswers<UUID, Answer>
    private let renewals: AskedInBatches<UUID, SessionStatus>

    struct Answer: Sendable {
        var open: Bool
        var patron: UUID
    }

    init(patron: InternalClient, cacheFor: TimeInterval) {
        self.patron = patron
        answers = FreshAnswers(lifetime: cacheFor)
        renewals = .renewals(of: patron, .sessionStatuses, label: "gateway.session-checks") { (reply: SessionStatuses) in reply.sessions }
    }

    enum Outcome: Sendable, Equatable {
        case open, closed, unknown
    }

    func check(_ session: UUID, of owner: UUID, logger: Logger) async -> Outcome {
        if let outcome = known(session, of: owner) { return outcome }
        // Remembered under the session's real owner: a token naming someone else changes nothing for the owner.
        let answer = await answers.answer(
            for: session,
            ask: { [patron] in
                do {
                    let status = try await patron.get(InternalRoute.session(session).path, as: SessionStatus.self, logger: logger)
                    return Answer(open: status.open, patron: status.patronId ?? owner)
                } catch {
                    logger.warning("Session check unavailable; accepting the signed token", metadata: ["error": "\(error)"])
                    return nil
                }
            },
            renew: renewal(of: session, owner: owner)
        )
        return Self.outcome(answer, for: owner)
    }

    /// The outcome from the answer remembered, without waiting (renewed in the background when due); nil when there is
    /// none yet (`check` asks patron).
    func known(_ session: UUID, of owner: UUID) -> Outcome? {
        guard let (answer, renewDue) = answers.kept(session) else { return nil }
        if renewDue { answers.renew(session, with: renewal(of: session, owner: owner)) }
        return Self.outcome(answer, for: owner)
    }

    private func renewal(of session: UUID, owner: UUID) -> @Sendable () async -> Answer? {
        { [renewals] in await renewals.value(for: session).map { Answer(open: $0.open, patron: $0.patronId ?? owner) } }
    }

    private static func outcome(_ answer: Answer?, for owner: UUID) -> Outcome {
        guard let answer else { return .unknown }
        return answer.open && answer.patron == owner ? .open : .closed
    }

    /// Forgets what patron said about the patron's sessions: they are asked again at their next use.
    func forget(patron: UUID) { answers.forget { $1.patron == patron } }
}
