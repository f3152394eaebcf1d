import AsyncHTTPClient
import Foundation
import JWTKit
import Logging
import NIOCore
import NIOFoundationCompat
import Shared

/// The library's OpenID Connect provider as patron reaches it: its discovery document and signing keys, fetched when
/// first needed and kept (the keys fetched again when a token names one not seen yet, as providers rotate them), and
/// the token endpoint, where a code becomes an ID token. A provider that cannot be reached answers
/// `AuthError.identityProviderUnavailable` (503), and is asked again on the next sign-in.
actor IdentityProvider {
    struct Metadata: Decodable, Sendable {
        var issuer: String
        var authorizationEndpoint: String
        var tokenEndpoint: String
        var jwksURI: String

        enum CodingKeys: String, CodingKey {
            case issuer
            case authorizationEndpoint = "authorization_endpoint"
            case tokenEndpoint = "token_endpoint"
            case jwksURI = "jwks_uri"
        }
    }

    let settings: OIDCSettings
    private let http: HTTPClient
    private var metadata: (value: Metadata, fetched: Date)?
    private var keys: (value: JWTKeyCollection, fetched: Date)?
    /// Discovery is read again after this long (an operator may change the provider's endpoints).
    private let metadataLifetime: TimeInterval = 3600

    init(settings: OIDCSettings, http: HTTPClient = .shared) {
        self.settings = settings
        self.http = http
    }

    /// The provider's endpoints (discovery, OpenID Connect Discovery 1.0 section 4), whose issuer must be the one
    /// configured.
    func endpoints(logger: Logger) async throws -> Metadata {
        if let metadata, Date().timeIntervalSince(metadata.fetched) < metadataLifetime { return metadata.value }
        let url = settings.issuer.trimmingSuffix("/") + "/.well-known/openid-configuration"
        let found = try JSONDecoder().decode(Metadata.self, from: try await get(url, logger: logger))
        guard found.issuer == settings.issuer else {
            logger.error("The identity provider's discovery names another issuer", metadata: ["oidc.issuer": "\(found.issuer)"])
            throw AuthError.identityProviderUnavailable(retryAfter: 60)
        }
        metadata = (found, Date())
        return found
    }

    /// Exchanges an authorization code (with its PKCE verifier) for the ID token, and returns its checked claims.
    func signIn(code: String, verifier: String, redirectURI: String, nonce: String, logger: Logger) async throws -> IDToken {
        let endpoints = try await endpoints(logger: logger)
        var form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", verifier)]
        var request = HTTPClientRequest(url: endpoints.tokenEndpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        if let secret = settings.clientSecret {
            // client_secret_basic: RFC 6749 2.3.1 form-encodes both before joining them.
            let (id, secret) = (PercentEncoding.encode(settings.clientID, keeping: .unreserved), PercentEncoding.encode(secret, keeping: .unreserved))
            let credentials = Data("\(id):\(secret)".utf8).base64EncodedString()
            request.headers.add(name: "Authorization", value: "Basic \(credentials)")
        } else {
            form.append(("client_id", settings.clientID))
        }
        request.body = .bytes(ByteBuffer(string: form.reduce(into: QueryString()) { $0.add($1.0, $1.1) }.description))
        let (status, body) = try await send(request, logger: logger)
        guard status == 200 else {
            // The provider refused the code (used, expired, or the verifier does not match): nobody signs in.
            let error = (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error"] as? String ?? "HTTP \(status)"
            logger.notice("The identity provider refused the code", metadata: ["oidc.error": "\(error)"])
            if status >= 500 { throw AuthError.identityProviderUnavailable(retryAfter: 30) }
            throw AuthError.singleSignOnFailed("The identity provider did not accept the sign-in")
        }
        guard let token = (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["id_token"] as? String else {
            throw AuthError.singleSignOnFailed("The identity provider sent no ID token")
        }
        return try await check(token, nonce: nonce, logger: logger)
    }

    /// The ID token's claims when its signature is the provider's and its claims hold (`IDToken.check`).
    func check(_ token: String, nonce: String, logger: Logger) async throws -> IDToken {
        do {
            try IDToken.checkAlgorithm(of: token)
            let claims: IDToken
            do {
                claims = try await signingKeys(logger: logger, renew: false).verify(token, as: IDToken.self)
            } catch is JWTError {
                // Perhaps signed with a key the provider added since (the token came from the provider itself, not from a caller): its keys once more.
                claims = try await signingKeys(logger: logger, renew: true).verify(token, as: IDToken.self)
            }
            try claims.check(issuer: settings.issuer, clientID: settings.clientID, nonce: nonce)
            return claims
        } catch let rejection as IDToken.Rejection {
            logger.warning("ID token refused", metadata: ["oidc.rejection": "\(rejection)"])
            throw AuthError.singleSignOnFailed("The identity provider's token could not be trusted")
        } catch let error as JWTError {
            logger.warning("ID token refused", metadata: ["oidc.rejection": "\(error)"])
            throw AuthError.singleSignOnFailed("The identity provider's token could not be trusted")
        }
    }

    private func signingKeys(logger: Logger, renew: Bool) async throws -> JWTKeyCollection {
        if let keys, !renew || Date().timeIntervalSince(keys.fetched) < 1 { return keys.value }
        let endpoints = try await endpoints(logger: logger)
        let collection = JWTKeyCollection()
        do {
            try await collection.add(jwksJSON: String(decoding: try await get(endpoints.jwksURI, logger: logger), as: UTF8.self))
        } catch let error as AuthError {
            throw error
        } catch {
            logger.error("The identity provider's keys could not be read", metadata: ["error": "\(error)"])
            throw AuthError.identityProviderUnavailable(retryAfter: 60)
        }
        keys = (collection, Date())
        return collection
    }

    private func get(_ url: String, logger: Logger) async throws -> Data {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        let (status, body) = try await send(request, logger: logger)
        guard status == 200 else {
            logger.error("The identity provider answered \(status)", metadata: ["url": "\(url)"])
            throw AuthError.identityProviderUnavailable(retryAfter: 30)
        }
        return body
    }

    private func send(_ request: HTTPClientRequest, logger: Logger) async throws -> (status: UInt, body: Data) {
        do {
            let response = try await http.execute(request, timeout: .milliseconds(Int64(settings.timeout * 1000)), logger: logger)
            let body = try await response.body.collect(upTo: 1 << 20)
            return (response.status.code, Data(buffer: body))
        } catch {
            logger.error("The identity provider cannot be reached", metadata: ["error": "\(error)"])
            throw AuthError.identityProviderUnavailable(retryAfter: 30)
        }
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
