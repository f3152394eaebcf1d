import Crypto
import Foundation
import Logging
import ServiceSupport
import Shared
import Synchronization

/// Authenticates a request once at the edge: a Bearer access token is verified locally and its session checked
/// (`SessionCheck`); HTTP Basic credentials are checked with patron and the verdict cached briefly under a hash of
/// the credentials (never in clear).
final class PatronAuthenticator: Sendable {
    enum Verdict: Sendable {
        case anonymous
        case patron(UUID)
        case refused(Problem)
    }

    let keys: AccessTokenKeys
    let patron: InternalClient
    let cacheFor: TimeInterval
    let sessions: SessionCheck
    private let cache = Mutex<[String: (UUID, Date)]>([:])

    init(keys: AccessTokenKeys, patron: InternalClient, cacheFor: TimeInterval, sessionCheckFor: TimeInterval) {
        self.keys = keys
        self.patron = patron
        self.cacheFor = cacheFor
        sessions = SessionCheck(patron: patron, cacheFor: sessionCheckFor)
    }

    func authenticate(authorization: String?, clientAddress: String?, logger: Logger) async -> Verdict {
        guard let authorization else { return .anonymous }
        if let token = BasicAuthorization.bearer(authorization) {
            guard let payload = try? await keys.verify(token), let id = payload.patronID, let session = UUID(uuidString: payload.sid) else {
                return .refused(Problem.unauthorized("The access token is invalid or expired"))
            }
            guard await sessions.isOpen(session, logger: logger) else {
                return .refused(Problem.unauthorized("This session has ended (signed out or revoked); sign in again"))
            }
            return .patron(id)
        }
        guard let basic = BasicAuthorization(header: authorization) else {
            return .refused(Problem.unauthorized("Authorization must be Basic or Bearer"))
        }
        let key = SHA256.hash(data: Data("\(basic.login)\u{0}\(basic.secret)".utf8)).map { String(format: "%02x", $0) }.joined()
        let now = Date()
        if let (id, until) = cache.withLock({ $0[key] }), until > now { return .patron(id) }
        do {
            let answer = try await patron.send(
                .POST, "/internal/auth/basic", body: BasicCredentials(login: basic.login, secret: basic.secret, clientAddress: clientAddress),
                as: AuthenticatedPatron.self, logger: logger)
            cache.withLock { entries in
                if entries.count > 100_000 { entries.removeAll() }
                entries[key] = (answer.patronId, now.addingTimeInterval(cacheFor))
            }
            return .patron(answer.patronId)
        } catch InternalClient.Failure.status(let code, let problem) {
            return .refused(problem ?? Problem(status: code, slug: nil, title: "Unauthorized"))
        } catch {
            return .refused(Problem(status: 503, slug: "auth-unavailable", title: "Service unavailable", detail: "Sign-in cannot be checked right now"))
        }
    }
}
