import Crypto
import Foundation
import HTTPTypes
import Logging
import ServiceSupport
import Shared

/// Authenticates a request once at the edge: a Bearer access token is verified locally and its session checked
/// (`SessionCheck`); HTTP Basic credentials are checked with patron and the verdict cached briefly under a hash of
/// the credentials (never in clear). A verified token's claims are kept until it expires: the key collection that
/// verifies tokens is an actor, so verifying every request's token queued all signed-in requests behind one another.
final class PatronAuthenticator: Sendable {
    enum Verdict: Sendable {
        case anonymous
        case patron(UUID)
        case refused(Problem)
    }

    let keys: AccessTokenKeys
    let patron: InternalClient
    let sessions: SessionCheck
    /// Basic verdicts by a digest of the credentials (never the credentials themselves).
    private let verdicts: ExpiringAnswers<Data, UUID>
    /// Verified access tokens' claims by a digest of the token, each until the token's own expiry.
    private let verifiedTokens = ExpiringAnswers<Data, VerifiedToken>(lifetime: 15 * 60, limit: 200_000)

    struct VerifiedToken: Sendable {
        let patron: UUID
        let session: UUID
        let expires: Date
    }

    /// The time a kept token's expiry is compared with (a test's own clock).
    private let now: @Sendable () -> Date

    init(
        keys: AccessTokenKeys,
        patron: InternalClient,
        cacheFor: TimeInterval,
        sessionCheckFor: TimeInterval,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.keys = keys
        self.patron = patron
        self.now = now
        verdicts = ExpiringAnswers(lifetime: cacheFor)
        sessions = SessionCheck(patron: patron, cacheFor: sessionCheckFor)
    }

    func authenticate(authorization: String?, clientAddress: String?, logger: Logger) async -> Verdict {
        guard let authorization else { return .anonymous }
        if let token = BasicAuthorization.bearer(authorization) {
            guard let verified = await verify(token) else {
                return .refused(Problem.unauthorized("The access token is invalid or expired"))
            }
            guard await sessions.isOpen(verified.session, of: verified.patron, logger: logger) else {
                return .refused(Problem.unauthorized("This session has ended (signed out or revoked); sign in again"))
            }
            return .patron(verified.patron)
        }
        guard let basic = BasicAuthorization(header: authorization) else {
            return .refused(Problem.unauthorized("Authorization must be Basic or Bearer"))
        }
        let key = Data(SHA256.hash(data: Data("\(basic.login)\u{0}\(basic.secret)".utf8)))
        if let id = verdicts[key] { return .patron(id) }
        do {
            let answer = try await patron.send(
                .POST,
                InternalRoute.basicCredentials.path,
                body: BasicCredentials(login: basic.login, secret: basic.secret, clientAddress: clientAddress),
                as: AuthenticatedPatron.self,
                logger: logger
            )
            verdicts.remember(answer.patronId, for: key)
            return .patron(answer.patronId)
        } catch InternalClient.Failure.status(let code, let problem) {
            return .refused(problem ?? Problem(status: code, slug: nil, title: "Unauthorized"))
        } catch {
            return .refused(
                Problem(status: 503, slug: "auth-unavailable", title: "Service unavailable", detail: "Sign-in cannot be checked right now")
            )
        }
    }

    /// The token's patron and session when its signature and expiry hold; a token seen before is not verified again.
    private func verify(_ token: String) async -> VerifiedToken? {
        let key = Data(SHA256.hash(data: Data(token.utf8)))
        if let known = verifiedTokens[key] { return known.expires > now() ? known : nil }
        guard let payload = try? await keys.verify(token), let id = payload.patronID, let session = UUID(uuidString: payload.sid) else {
            return nil
        }
        let verified = VerifiedToken(patron: id, session: session, expires: payload.exp.value)
        verifiedTokens.remember(verified, for: key)
        return verified
    }

    /// Forgets the patron's cached Basic verdicts and session answers, after a change of their secret or sessions
    /// passed through this gateway: the old PIN and the ended sessions are refused from the next request on.
    func forget(patron: UUID) {
        verdicts.forget { $1 == patron }
        sessions.forget(patron: patron)
    }

    /// The changes after which `forget(patron:)` is due.
    static func changesCredentials(method: HTTPRequest.Method, path: String) -> Bool {
        (method == .put && path == PublicRoute.password.path) || (method == .post && path == PublicRoute.revokeAllSessions.path)
            || (method == .delete && path == PublicRoute.me.path)
    }
}
