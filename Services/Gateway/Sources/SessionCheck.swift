import Foundation
import Logging
import ServiceSupport
import Shared
import Synchronization

/// Whether the session an access token belongs to is still open, asked of patron and remembered for `cacheFor`
/// (`SESSION_CHECK_TTL`): a token of a session that was logged out, revoked or deleted with its account stops working
/// within that time instead of at its expiry. When patron cannot answer, a validly signed token is accepted (signed-in
/// browsing survives a patron outage); a closed session is never forgotten early.
final class SessionCheck: Sendable {
    let patron: InternalClient
    let cacheFor: TimeInterval
    private let answers = Mutex<[UUID: (open: Bool, until: Date)]>([:])

    init(patron: InternalClient, cacheFor: TimeInterval) {
        self.patron = patron
        self.cacheFor = cacheFor
    }

    func isOpen(_ session: UUID, logger: Logger) async -> Bool {
        let now = Date()
        if let known = answers.withLock({ $0[session] }), known.until > now { return known.open }
        do {
            let status = try await patron.get("/internal/sessions/\(session.uuidString.lowercased())", as: SessionStatus.self, logger: logger)
            answers.withLock { answers in
                if answers.count > 100_000 { answers = answers.filter { $0.value.until > now } }
                answers[session] = (status.open, now.addingTimeInterval(cacheFor))
            }
            return status.open
        } catch {
            logger.warning("Session check unavailable; accepting the signed token", metadata: ["error": "\(error)"])
            return true
        }
    }
}
