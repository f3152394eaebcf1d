import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceSupport
import Shared

/// `/auth/oidc/*`: signing in through the library's identity provider (OpenID Connect's authorization code flow with
/// PKCE), for the web app and for OPDS apps (Authentication for OPDS' implicit flow: the app opens the `authenticate`
/// link with its `redirect_uri` and gets its tokens back in that address's fragment). Answers 404 while `PATRON_AUTH`
/// does not name `oidc`. The same round trip makes a KOReader sync key for a patron who has no PIN to confirm one with
/// (`purpose=sync-key`): a key outlives any session, so it takes the patron at the provider, never a token alone.
struct SingleSignOnController: Sendable {
    let provider: IdentityProvider?
    let signIns: SingleSignOnPostgresRepository
    let authenticator: Authenticator
    let syncKeys: SyncKeyPostgresRepository
    let types: PatronTypeRules
    let publicURL: String
    /// Reads the client's address the gateway passes on.
    let token: ServiceToken
    /// How long a sign-in may stay at the provider.
    static let lifetime: TimeInterval = 600

    func add(to router: Router<PatronRequestContext>) {
        router.get(.singleSignOn, use: begin)
        router.get(.singleSignOnReturn, use: finish)
    }

    private func settings() throws -> (IdentityProvider, OIDCSettings) {
        guard let provider else { throw Problem.notFound("This library has no single sign-on") }
        return (provider, provider.settings)
    }

    /// `GET /auth/oidc/authorize?redirect_uri=&state=` → 302 to the provider. `redirect_uri` (default: the web app)
    /// must be this library's own address or start with one of `OIDC_APP_REDIRECTS` (400 otherwise); `state` is the
    /// app's, given back with its tokens. With `purpose=sync-key&device=`, the return makes a sync key for that device
    /// instead of a session, and sends it to this library's own address only.
    func begin(request: Request, context: PatronRequestContext) async throws -> Response {
        let (provider, settings) = try settings()
        let parameters = request.uri.queryParameters
        let syncKeyDevice: String?
        switch parameters["purpose"].map(String.init) {
        case nil, "sign-in": syncKeyDevice = nil
        case "sync-key":
            // The name the patron typed, as a form sends it (`+` for a space).
            let form: [String: String]
            do { form = try TokenGrant.formFields(request.uri.query ?? "") } catch let error as OAuthError {
                throw Problem.badRequest(error.description)
            }
            syncKeyDevice = try SyncKeyController.deviceName(form["device"] ?? "")
        default: throw Problem.badRequest("purpose is sign-in (the default) or sync-key")
        }
        let requested = parameters["redirect_uri"].map(String.init) ?? publicURL + "/"
        guard let app = AppRedirect(requested, publicURL: publicURL, allowedPrefixes: syncKeyDevice == nil ? settings.appRedirects : []) else {
            throw Problem.badRequest(
                syncKeyDevice == nil
                    ? "redirect_uri is neither this library's address nor one of the apps it lets sign in"
                    : "redirect_uri must be this library's own address: a sync key is shown only there"
            )
        }
        let appState = parameters["state"].map(String.init)
        guard (appState?.count ?? 0) <= 512 else { throw Problem.badRequest("state is longer than 512 characters") }
        let endpoints = try await provider.endpoints(logger: context.logger)
        let (state, nonce, verifier) = (Authenticator.randomToken(), Authenticator.randomToken(), Authenticator.randomToken())
        if let wait = try await signIns.begin(
            stateHash: AccountPostgresRepository.hashToken(state),
            .init(nonce: nonce, codeVerifier: verifier, appRedirect: app.url, appState: appState, syncKeyDevice: syncKeyDevice),
            address: Caller(request: request, token: token).clientAddress,
            lifetime: Self.lifetime,
            logger: context.logger
        ) {
            throw Problem(
                status: 429,
                slug: "too-many-sign-ins",
                title: "Too many requests",
                detail: "At most \(SingleSignOnPostgresRepository.perAddress) sign-ins may be under way from one address; try again in \(wait) s",
                retryAfter: wait
            )
        }
        let query = QueryString().adding("response_type", "code").adding("client_id", settings.clientID)
            .adding("redirect_uri", PublicRoute.singleSignOnReturn.url(publicURL)).adding("scope", settings.scopes).adding("state", state)
            .adding("nonce", nonce).adding("code_challenge", Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncodedString())
            .adding("code_challenge_method", "S256").description
        let separator = endpoints.authorizationEndpoint.contains("?") ? "&" : "?"
        return Self.redirect(to: endpoints.authorizationEndpoint + separator + query)
    }

    /// `GET /auth/oidc/callback?code=&state=` (or `error=`), from the provider → 302 to the app's `redirect_uri` with
    /// `access_token`, `token_type`, `expires_in`, `refresh_token` and the app's `state` in the fragment, or `error`
    /// and `error_description` when the sign-in failed. An unknown, used or expired state is a 400.
    func finish(request: Request, context: PatronRequestContext) async throws -> Response {
        let (provider, settings) = try settings()
        let parameters = request.uri.queryParameters
        guard let state = parameters["state"].map(String.init), !state.isEmpty,
            let pending = try await signIns.take(stateHash: AccountPostgresRepository.hashToken(state), logger: context.logger),
            let app = AppRedirect(pending.appRedirect, publicURL: publicURL, allowedPrefixes: settings.appRedirects)
        else {
            throw AuthError.singleSignOnFailed("This sign-in is unknown, was already used or took longer than \(Int(Self.lifetime / 60)) minutes")
        }
        let appState = pending.appState.map { [("state", $0)] } ?? []
        if let error = parameters["error"] {
            // The patron said no at the provider, or the provider refused the request: the app hears which.
            context.logger.info("The identity provider ended the sign-in", metadata: ["oidc.error": "\(error)"])
            let code =
                ["access_denied", "login_required", "consent_required", "temporarily_unavailable"].contains(String(error))
                ? String(error) : "access_denied"
            return Self.redirect(to: app.with([("error", code)] + appState))
        }
        do {
            guard let code = parameters["code"].map(String.init), !code.isEmpty else {
                throw AuthError.singleSignOnFailed("The identity provider sent no code")
            }
            let token = try await provider.signIn(
                code: code,
                verifier: pending.codeVerifier,
                redirectURI: PublicRoute.singleSignOnReturn.url(publicURL),
                nonce: pending.nonce,
                logger: context.logger
            )
            let type = settings.typeClaim.flatMap { token.others[$0] }.map { types.strictest(named: $0) }
            let patron = try await signIns.link(
                issuer: settings.issuer,
                subject: token.subject,
                token: token,
                type: type,
                limits: types.limits(for: type ?? .adult),
                logger: context.logger
            )
            if let device = pending.syncKeyDevice {
                return Self.redirect(to: app.with(try await syncKey(for: patron.id, device: device, logger: context.logger) + appState))
            }
            context.logger.info("Signed in through the identity provider", metadata: ["patron.id": "\(patron.id)"])
            let tokens = try await authenticator.issueTokens(patronID: patron.id, logger: context.logger)
            return Self.redirect(
                to: app.with(
                    [
                        ("access_token", tokens.accessToken), ("token_type", "bearer"), ("expires_in", "\(tokens.expiresIn)"),
                        ("refresh_token", tokens.refreshToken),
                    ] + appState
                )
            )
        } catch let error as AuthError {
            let code = if case .identityProviderUnavailable = error { "temporarily_unavailable" } else { "access_denied" }
            return Self.redirect(to: app.with([("error", code), ("error_description", error.problem.detail ?? "")] + appState))
        }
    }

    /// The fields of a sync key made for `device` at the return (shown once, like a key made with a PIN), or of the
    /// error when the patron has as many as they may.
    private func syncKey(for patronID: UUID, device: String, logger: Logger) async throws -> [(String, String)] {
        let limit = SyncKeyController.keysPerPatron
        guard let key = try await syncKeys.create(patronID: patronID, device: device, limit: limit, logger: logger) else {
            return [("error", "sync_key_limit"), ("error_description", SyncKeyController.limitReached(limit).detail ?? "")]
        }
        logger.info("Sync key made through the identity provider", metadata: ["patron.id": "\(patronID)", "sync_key.id": "\(key.id)"])
        return [("sync_key_id", key.id.lowercased), ("sync_key_username", key.username), ("sync_key", key.key), ("device", key.device)]
    }

    /// A redirect no cache keeps (it carries a one-time state, or tokens).
    private static func redirect(to location: String) -> Response {
        Response(status: .found, headers: [.location: location, .cacheControl: "no-store", HTTPField.Name("Referrer-Policy")!: "no-referrer"])
    }
}
