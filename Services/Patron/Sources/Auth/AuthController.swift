import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// `/auth/*`: sign-up, the token endpoint (Basic credentials and RFC 6749 grants), logout and the auth document.
struct AuthController: Sendable {
    let accounts: AccountPostgresRepository
    let profiles: ProfilePostgresRepository
    let authenticator: Authenticator
    let document: AuthDocument
    let token: ServiceToken
    let loanLimit: Int
    let holdLimit: Int
    let signupsPerHour: Int
    let announcements: AnnouncementPostgresRepository

    func add(to router: Router<PatronRequestContext>) {
        router.get(.authDocument) { _, context in
            // The current announcements too; without the database, the document still answers (without them).
            var document = document
            document.announcements = try? await announcements.current(logger: context.logger)
            return try document.response()
        }
        router.post(.signup, use: signup)
        router.post(.token, use: issueToken)
        router.post(.refresh, use: issueToken)
        router.post(.logout, use: logout)
    }

    struct SignupResponse: Encodable {
        var patron: Profile
        var tokens: TokenResponse
    }

    /// `POST /auth/signup` → 201 with the patron and tokens; 400 for a bad field; 409 for a taken username/email; 429
    /// past `SIGNUPS_PER_HOUR` from one address.
    func signup(request: Request, context: PatronRequestContext) async throws -> Response {
        guard authenticator.localAccounts else { throw AuthError.signUpOff }
        let account = try await JSONMessages.decode(SignupRequest.self, from: request).validated()
        // Each sign-up costs a bcrypt: a flood from one address must not starve everyone's sign-in.
        let address = Caller(request: request, token: token).clientAddress
        if let address, let wait = try await accounts.reserveSignup(address: address, perHour: signupsPerHour, logger: context.logger) {
            throw Problem(
                status: 429,
                slug: "too-many-signups",
                title: "Too many requests",
                detail: "At most \(signupsPerHour) sign-ups an hour from one address; try again in \(wait) s",
                retryAfter: wait
            )
        }
        let hash = try await authenticator.hasher.hash(account.secret)
        let id = try await accounts.create(account, secretHash: hash, loanLimit: loanLimit, holdLimit: holdLimit, logger: context.logger)
        context.logger.info("Patron signed up", metadata: ["patron.id": "\(id)"])
        if let address {
            try await authenticator.throttle.signedUp(
                logins: [account.barcode] + [account.username].compactMap { $0 },
                from: address,
                logger: context.logger
            )
        }
        let tokens = try await authenticator.issueTokens(patronID: id, logger: context.logger)
        // An address given at sign-up is mailed its confirmation link.
        _ = try await MailPostgresRepository(client: accounts.client).requestVerification(patronID: id, logger: context.logger)
        let profile = try await profiles.profile(patronID: id, logger: context.logger)
        return try JSONMessages.response(SignupResponse(patron: profile!, tokens: tokens), status: .created, headers: TokenResponses.noStore)
    }

    /// `POST /auth/token` and `POST /auth/refresh`, one token endpoint as RFC 6749 has: HTTP Basic credentials (what
    /// OPDS apps send), RFC 6749's form-encoded `password` and `refresh_token` grants, or the same as JSON, answer
    /// tokens. Refusals are problem documents, or RFC 6749 error objects for a request that named a `grant_type`;
    /// no credentials at all answer 401 with the auth document. A refresh token used twice revokes its session.
    func issueToken(request: Request, context: PatronRequestContext) async throws -> Response {
        let body = try await JSONMessages.body(of: request, limit: 16 * 1024)
        let parsed: TokenGrant.Parsed?
        do {
            parsed = try TokenGrant.parse(
                contentType: request.headers[.contentType],
                body: body,
                basic: BasicAuthorization(header: request.headers[.authorization])
            )
        } catch let error as OAuthError {
            return try error.response()
        }
        guard let parsed else { return try document.response(status: .unauthorized) }
        do {
            let tokens: TokenResponse
            switch parsed.grant {
            case .password(let login, let secret):
                let caller = Caller(request: request, token: token)
                let (patronID, _) = try await authenticator.authenticate(
                    login: login,
                    secret: secret,
                    clientAddress: caller.clientAddress,
                    logger: context.logger
                )
                tokens = try await authenticator.issueTokens(patronID: patronID, logger: context.logger)
            case .refreshToken(let refreshToken):
                tokens = try await authenticator.refresh(refreshToken, logger: context.logger)
            }
            return try JSONMessages.response(tokens, headers: TokenResponses.noStore)
        } catch let error as AuthError where parsed.speaksOAuth {
            return try OAuthError(error).response()
        }
    }

    struct RefreshRequest: Decodable {
        var refreshToken: String
        enum CodingKeys: String, CodingKey { case refreshToken = "refresh_token" }
    }

    /// `POST /auth/logout` `{refresh_token}` → 204; the session's refresh tokens stop working.
    func logout(request: Request, context: PatronRequestContext) async throws -> Response {
        let body = try await JSONMessages.decode(RefreshRequest.self, from: request)
        guard let patronID = try await accounts.revoke(refreshHash: AccountPostgresRepository.hashToken(body.refreshToken), logger: context.logger)
        else {
            throw AuthError.invalidRefreshToken
        }
        return Response(status: .noContent).announcingCredentialsChanged(of: patronID)
    }
}
