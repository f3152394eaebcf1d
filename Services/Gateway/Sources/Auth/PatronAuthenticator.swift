import Crypto
import Foundation
import HTTPTypes
import Logging
import ServiceSupport
import Shared
import Synchronization

/// Authenticates a request once at the edge: a Bearer access token is verified locally and its session checked
/// (`SessionCheck`); HTTP Basic credentials are checked with patron (bcrypt) and the verdict kept under a hash of the
/// credentials (never in clear) for `BASIC_AUTH_CACHE_TTL`, each use checking only that the patron's secret is still
/// the one it was given for (`SecretCheck`, as cheap as the session check): Basic costs what Bearer costs. A verified
/// token's claims are kept until it expires: the key collection that verifies tokens is an actor, so verifying every
/// request's token queued all signed-in requests behind one another. Both are kept under a digest of the whole
/// `Authorization` header, and a request whose header, session or secret answers are all kept is decided without
/// waiting for anything (`kept`): no Base64 decoding, no task frame, on every signed-in request but the first.
final class PatronAuthenticator: Sendable {
    enum Verdict: Sendable {
        case anonymous
        /// A signed-in patron, and what their card may see (a teen's or a child's: `AudienceLimit`).
        case patron(UUID, AudienceLimit?)
        case refused(Problem)
    }

    let keys: AccessTokenKeys
    let patron: InternalClient
    /// Patron again, for Basic checks only: a pool of connections of its own and a timeout past patron's bcrypt
    /// queue (`HTTPClient.signIn`), so that a crowd of first sign-ins never delays anyone else's requests.
    let basicChecks: InternalClient
    let sessions: SessionCheck
    /// Basic verdicts by a digest of the header (never the credentials themselves).
    private let verdicts: ExpiringAnswers<SHA256Digest, BasicVerdict>
    let secrets: SecretCheck
    /// Basic checks under way, by the same digest: concurrent requests with the same credentials (an app loading a
    /// page and its covers) wait for one check instead of each costing patron a bcrypt. Internal: tests wait for them.
    let checks = SharedTasks<SHA256Digest, Verdict>()
    /// Verified access tokens' claims by a digest of the header, each until the token's own expiry.
    private let verifiedTokens = ExpiringAnswers<SHA256Digest, VerifiedToken>(lifetime: 15 * 60, limit: 200_000)

    struct BasicVerdict: Sendable {
        let patron: UUID
        let limit: AudienceLimit?
        /// The stamp of the secret the credentials matched (`SecretStamp`).
        let secretStamp: String?
    }

    struct VerifiedToken: Sendable {
        let patron: UUID
        let limit: AudienceLimit?
        let session: UUID
        let expires: Date
    }

    /// The time a kept token's expiry is compared with and Basic verdicts age by (a test's own clock).
    private let now: @Sendable () -> Date

    init(
        keys: AccessTokenKeys,
        patron: InternalClient,
        basicChecks: InternalClient? = nil,
        cacheFor: TimeInterval,
        sessionCheckFor: TimeInterval,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.keys = keys
        self.patron = patron
        self.basicChecks = basicChecks ?? patron
        self.now = now
        verdicts = ExpiringAnswers(lifetime: cacheFor, now: now)
        sessions = SessionCheck(patron: patron, cacheFor: sessionCheckFor)
        secrets = SecretCheck(patron: patron, cacheFor: sessionCheckFor)
    }

    func authenticate(authorization: String?, clientAddress: String?, logger: Logger) async -> Verdict {
        guard let authorization else { return .anonymous }
        let key = Self.key(authorization)
        if let verdict = kept(key, clientAddress: clientAddress, authorization: authorization, logger: logger) { return verdict }
        if let token = BasicAuthorization.bearer(authorization) {
            guard let verified = await verify(token, key: key) else {
                return .refused(Self.badToken)
            }
            return Self.verdict(for: verified, await sessions.check(verified.session, of: verified.patron, logger: logger))
        }
        guard let basic = BasicAuthorization(header: authorization) else {
            return .refused(Problem.unauthorized("Authorization must be Basic or Bearer"))
        }
        if let (verdict, renewDue) = verdicts.answer(for: key, renewWithin: verdicts.lifetime / 4) {
            if await secrets.holds(verdict.secretStamp, for: verdict.patron, logger: logger) {
                return accepted(verdict, renewDue: renewDue, basic, key: key, clientAddress: clientAddress, logger: logger)
            }
            verdicts.forget(key)
        }
        return await check(basic, key: key, clientAddress: clientAddress, background: false, logger: logger).value
    }

    /// The verdict from what is kept for this header alone, when every answer it needs is kept: a token's claims and its
    /// session's answer, or a Basic verdict and its secret's stamp (renewals due are started in the background). Nil
    /// when something must be asked or verified (`authenticate` goes on and waits).
    private func kept(_ key: SHA256Digest, clientAddress: String?, authorization: String, logger: Logger) -> Verdict? {
        if let token = verifiedTokens[key] {
            guard token.expires > now() else { return .refused(Self.badToken) }
            return sessions.known(token.session, of: token.patron).map { Self.verdict(for: token, $0) }
        }
        guard let (verdict, renewDue) = verdicts.answer(for: key, renewWithin: verdicts.lifetime / 4),
            secrets.known(verdict.secretStamp, for: verdict.patron) == true
        else { return nil }
        return accepted(
            verdict,
            renewDue: renewDue,
            BasicAuthorization(header: authorization),
            key: key,
            clientAddress: clientAddress,
            logger: logger
        )
    }

    /// A verified token's verdict, by what is known of its session.
    private static func verdict(for token: VerifiedToken, _ session: SessionCheck.Outcome) -> Verdict {
        switch session {
        case .open, .unknown: .patron(token.patron, token.limit)
        case .closed: .refused(endedSession)
        }
    }

    /// A kept Basic verdict whose secret still holds. A patron still browsing is checked again before the verdict runs
    /// out, in the background, so that their requests never wait for a bcrypt (`basic` is decoded only then).
    private func accepted(
        _ verdict: BasicVerdict,
        renewDue: Bool,
        _ basic: @autoclosure () -> BasicAuthorization?,
        key: SHA256Digest,
        clientAddress: String?,
        logger: Logger
    ) -> Verdict {
        if renewDue, let basic = basic() { _ = check(basic, key: key, clientAddress: clientAddress, background: true, logger: logger) }
        return .patron(verdict.patron, verdict.limit)
    }

    /// The refusals a token or its session may get, from what is kept or after asking.
    static let badToken = Problem.unauthorized("The access token is invalid or expired")
    static let endedSession = Problem.unauthorized("This session has ended (signed out or revoked); sign in again")

    /// The key a header's verdict or token is kept under: its SHA-256, read from the header's bytes in place.
    static func key(_ authorization: String) -> SHA256Digest {
        var header = authorization
        return header.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
    }

    /// Asks patron whether the credentials hold, once for every request that asks while it is under way; remembers a
    /// yes, and forgets an earlier yes on a no (the PIN was changed elsewhere: the background check finds it out). A
    /// `background` renewal waits in patron behind every first sign-in; when patron has no room for it, the verdict
    /// it would renew is kept another period (its secret stamp is still checked on every use).
    private func check(
        _ basic: BasicAuthorization,
        key: SHA256Digest,
        clientAddress: String?,
        background: Bool,
        logger: Logger
    ) -> Task<Verdict, Never> {
        checks.task(for: key) { [basicChecks, verdicts] in
            do {
                let answer = try await basicChecks.send(
                    .POST,
                    InternalRoute.basicCredentials.path,
                    body: BasicCredentials(login: basic.login, secret: basic.secret, clientAddress: clientAddress),
                    as: AuthenticatedPatron.self,
                    headers: background ? [(InternalHeader.backgroundCheck, "yes")] : [],
                    logger: logger
                )
                let limit = AudienceLimit(patronType: answer.patronType)
                verdicts.remember(BasicVerdict(patron: answer.patronId, limit: limit, secretStamp: answer.secretStamp), for: key)
                return .patron(answer.patronId, limit)
            } catch InternalClient.Failure.status(let code, let problem) {
                if code == 401 { verdicts.forget(key) }
                if background, code == 503, let kept = verdicts[key] {
                    verdicts.remember(kept, for: key)
                    return .patron(kept.patron, kept.limit)
                }
                return .refused(problem ?? Problem(status: code, slug: nil, title: "Unauthorized"))
            } catch {
                return .refused(
                    Problem(
                        status: 503,
                        slug: "auth-unavailable",
                        title: "Service unavailable",
                        detail: "Sign-in cannot be checked right now",
                        retryAfter: 5
                    )
                )
            }
        }
    }

    /// The token's patron and session when its signature and expiry hold; a token seen before is not verified again.
    private func verify(_ token: String, key: SHA256Digest) async -> VerifiedToken? {
        if let known = verifiedTokens[key] { return known.expires > now() ? known : nil }
        guard let payload = try? await keys.verify(token), let id = payload.patronID, let session = UUID(uuidString: payload.sid) else {
            return nil
        }
        let verified = VerifiedToken(patron: id, limit: AudienceLimit(patronType: payload.ptype), session: session, expires: payload.exp.value)
        verifiedTokens.remember(verified, for: key)
        return verified
    }

    /// Forgets the patron's cached Basic verdicts and session answers, after patron said their secret or sessions
    /// changed (`InternalHeader.credentialsChanged`: a sign-out, a new PIN, every session revoked, the account deleted)
    /// through this gateway: the old PIN and the ended sessions are refused from the next request on.
    func forget(patron: UUID) {
        verdicts.forget { $1.patron == patron }
        sessions.forget(patron: patron)
        secrets.forget(patron: patron)
    }

}
