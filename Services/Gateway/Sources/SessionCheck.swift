import Foundation
import Logging
import ServiceSupport
import Shared

/// Whether the session an access token belongs to is still open, asked of patron and remembered for `cacheFor`
/// (`SESSION_CHECK_TTL`): a token of a session that was logged out, revoked or deleted with its account stops working
/// within that time instead of at its expiry. When patron cannot answer, a validly signed token is accepted (signed-in
/// browsing survives a patron outage).
final class SessionCheck: Sendable {
    let patron: InternalClient
    /// By session: whether it is open, and whose it is.
    private let answers: ExpiringAnswers<UUID, Answer>

    struct Answer: Sendable {
        var open: Bool
        var patron: UUID
    }

    init(patron: InternalClient, cacheFor: TimeInterval) {
        self.patron = patron
        answers = ExpiringAnswers(lifetime: cacheFor)
    }

    func isOpen(_ session: UUID, of owner: UUID, logger: Logger) async -> Bool {
        if let answer = answers[session] { return answer.open }
        do {
            let status = try await patron.get(InternalRoute.session(session).path, as: SessionStatus.self, logger: logger)
            answers.remember(Answer(open: status.open, patron: owner), for: session)
            return status.open
        } catch {
            logger.warning("Session check unavailable; accepting the signed token", metadata: ["error": "\(error)"])
            return true
        }
    }

    /// Forgets what patron said about the patron's sessions: they are asked again at their next use.
    func forget(patron: UUID) { answers.forget { $1.patron == patron } }
}
