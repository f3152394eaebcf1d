import Foundation
import JWTKit

/// An OpenID Connect ID token's claims: the standard ones Bookmobile checks or keeps, and every other claim whose value
/// is a string or a list of strings (a patron type claim may be either).
struct IDToken: JWTPayload, Equatable {
    var issuer: String
    var subject: String
    var audience: [String]
    var expires: Date
    var issuedAt: Date
    var nonce: String?
    var authorizedParty: String?
    var name: String?
    var email: String?
    var emailVerified: Bool
    var others: [String: [String]] = [:]

    /// Why a token signed by the provider still does not sign anyone in (OpenID Connect Core 3.1.3.7).
    enum Rejection: Error, Equatable {
        case issuer, audience, authorizedParty, expired, issuedInFuture, nonce
        case algorithm(String)
    }

    /// The signing algorithms accepted: the provider's keys are public, so a symmetric algorithm (the public key used
    /// as an HMAC secret) or `none` would let anyone mint tokens.
    static let algorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"]

    /// Checks the claims against the issuer, this client, the sign-in's nonce and the clock (`leeway` for clocks a
    /// little apart).
    func check(issuer expectedIssuer: String, clientID: String, nonce expectedNonce: String, now: Date = Date(), leeway: TimeInterval = 60) throws {
        guard issuer == expectedIssuer else { throw Rejection.issuer }
        guard audience.contains(clientID) else { throw Rejection.audience }
        // With other audiences, the token must say it was issued to us.
        if audience.count > 1 || authorizedParty != nil { guard authorizedParty == clientID else { throw Rejection.authorizedParty } }
        guard expires.addingTimeInterval(leeway) > now else { throw Rejection.expired }
        guard issuedAt.addingTimeInterval(-leeway) <= now else { throw Rejection.issuedInFuture }
        guard let nonce, nonce == expectedNonce else { throw Rejection.nonce }
    }

    /// The algorithm a compact token's header names, refused unless it is one of `algorithms`.
    static func checkAlgorithm(of token: String) throws {
        guard let header = token.split(separator: ".", omittingEmptySubsequences: false).first,
            let data = Data(base64URLEncoded: header),
            let fields = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let algorithm = fields["alg"] as? String
        else { throw Rejection.algorithm("none") }
        guard algorithms.contains(algorithm) else { throw Rejection.algorithm(algorithm) }
    }

    /// The checks are `check`'s, which need the sign-in's nonce.
    func verify(using algorithm: some JWTAlgorithm) async throws {}

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private static let standard: Set<String> = ["iss", "sub", "aud", "exp", "iat", "nonce", "azp", "name", "email", "email_verified"]

    init(
        issuer: String,
        subject: String,
        audience: [String],
        expires: Date,
        issuedAt: Date,
        nonce: String?,
        authorizedParty: String? = nil,
        name: String? = nil,
        email: String? = nil,
        emailVerified: Bool = false,
        others: [String: [String]] = [:]
    ) {
        (self.issuer, self.subject, self.audience, self.expires, self.issuedAt) = (issuer, subject, audience, expires, issuedAt)
        (self.nonce, self.authorizedParty, self.name, self.email, self.emailVerified, self.others) = (
            nonce, authorizedParty, name, email, emailVerified, others
        )
    }

    init(from decoder: any Decoder) throws {
        let claims = try decoder.container(keyedBy: Key.self)
        issuer = try claims.decode(String.self, forKey: Key("iss"))
        subject = try claims.decode(String.self, forKey: Key("sub"))
        if let many = try? claims.decode([String].self, forKey: Key("aud")) {
            audience = many
        } else {
            audience = [try claims.decode(String.self, forKey: Key("aud"))]
        }
        expires = Date(timeIntervalSince1970: try claims.decode(Double.self, forKey: Key("exp")))
        issuedAt = Date(timeIntervalSince1970: try claims.decode(Double.self, forKey: Key("iat")))
        nonce = try claims.decodeIfPresent(String.self, forKey: Key("nonce"))
        authorizedParty = try claims.decodeIfPresent(String.self, forKey: Key("azp"))
        name = try? claims.decodeIfPresent(String.self, forKey: Key("name"))
        email = try? claims.decodeIfPresent(String.self, forKey: Key("email"))
        emailVerified = (try? claims.decodeIfPresent(Bool.self, forKey: Key("email_verified"))) == true
        for key in claims.allKeys where !Self.standard.contains(key.stringValue) {
            if let one = try? claims.decode(String.self, forKey: key) {
                others[key.stringValue] = [one]
            } else if let many = try? claims.decode([String].self, forKey: key) {
                others[key.stringValue] = many
            }
        }
    }

    func encode(to encoder: any Encoder) throws {
        var claims = encoder.container(keyedBy: Key.self)
        try claims.encode(issuer, forKey: Key("iss"))
        try claims.encode(subject, forKey: Key("sub"))
        try claims.encode(audience, forKey: Key("aud"))
        try claims.encode(Int(expires.timeIntervalSince1970), forKey: Key("exp"))
        try claims.encode(Int(issuedAt.timeIntervalSince1970), forKey: Key("iat"))
        try claims.encodeIfPresent(nonce, forKey: Key("nonce"))
        try claims.encodeIfPresent(authorizedParty, forKey: Key("azp"))
        try claims.encodeIfPresent(name, forKey: Key("name"))
        try claims.encodeIfPresent(email, forKey: Key("email"))
        if emailVerified { try claims.encode(true, forKey: Key("email_verified")) }
        for (key, values) in others { try claims.encode(values, forKey: Key(key)) }
    }
}
