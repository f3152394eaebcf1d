import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// `/auth/*`: sign-up, tokens from Basic credentials, refresh, logout and the auth document.
struct AuthController: Sendable {
    let accounts: AccountPostgresRepository
    let authenticator: Authenticator
    let document: AuthDocument
    let token: ServiceToken
    let loanLimit: Int
    let holdLimit: Int
    let signupsPerHour: Int

    func add(to router: Router<BasicRequestContext>) {
        let group = router.group("/auth")
        group.get("/document") { _, _ in try document.response() }
        group.post("/signup", use: signup)
        group.post("/token", use: issueToken)
        group.post("/refresh", use: refresh)
        group.post("/logout", use: logout)
    }

    struct SignupResponse: Encodable {
        var patron: Profile
        var tokens: TokenResponse
    }

    /// `POST /auth/signup` → 201 with the patron and tokens; 400 for a bad field; 409 for a taken username/email; 429
    /// past `SIGNUPS_PER_HOUR` from one address.
    func signup(request: Request, context: BasicRequestContext) async throws -> Response {
        let account = try await JSONMessages.decode(SignupRequest.self, from: request).validated()
        // Each sign-up costs a bcrypt: a flood from one address must not starve everyone's sign-in.
        if let address = Caller(request: request, token: token).clientAddress,
            let wait = try await accounts.reserveSignup(address: address, perHour: signupsPerHour, logger: context.logger)
        {
            throw Problem(
                status: 429, slug: "too-many-signups", title: "Too many requests",
                detail: "At most \(signupsPerHour) sign-ups an hour from one address; try again in \(wait) s", retryAfter: wait)
        }
        let hash = try await authenticator.hasher.hash(account.secret)
        let id = try await accounts.create(account, secretHash: hash, loanLimit: loanLimit, holdLimit: holdLimit, logger: context.logger)
        context.logger.info("Patron signed up", metadata: ["patron.id": "\(id)"])
        let tokens = try await authenticator.issueTokens(patronID: id, logger: context.logger)
        let profile = try await ProfilePostgresRepository(client: accounts.client).profile(patronID: id, logger: context.logger)
        return try JSONMessages.response(SignupResponse(patron: profile!, tokens: tokens), status: .created)
    }

    /// `POST /auth/token` with HTTP Basic credentials → tokens; 401 with the auth document; 429 while throttled.
    func issueToken(request: Request, context: BasicRequestContext) async throws -> Response {
        guard let basic = BasicAuthorization(header: request.headers[.authorization]) else {
            return try document.response(status: .unauthorized)
        }
        let caller = Caller(request: request, token: token)
        let patronID = try await authenticator.authenticate(
            login: basic.login, secret: basic.secret, clientAddress: caller.clientAddress, logger: context.logger)
        return try JSONMessages.response(try await authenticator.issueTokens(patronID: patronID, logger: context.logger))
    }

    struct RefreshRequest: Decodable {
        var refreshToken: String
        enum CodingKeys: String, CodingKey { case refreshToken = "refresh_token" }
    }

    /// `POST /auth/refresh` `{refresh_token}` → new tokens; reuse of an old token revokes the session.
    func refresh(request: Request, context: BasicRequestContext) async throws -> Response {
        let body = try await JSONMessages.decode(RefreshRequest.self, from: request)
        return try JSONMessages.response(try await authenticator.refresh(body.refreshToken, logger: context.logger))
    }

    /// `POST /auth/logout` `{refresh_token}` → 204; the session's refresh tokens stop working.
    func logout(request: Request, context: BasicRequestContext) async throws -> Response {
        let body = try await JSONMessages.decode(RefreshRequest.self, from: request)
        guard try await accounts.revoke(refreshHash: AccountPostgresRepository.hashToken(body.refreshToken), logger: context.logger) else {
            throw AuthError.invalidRefreshToken
        }
        return Response(status: .noContent)
    }
}
