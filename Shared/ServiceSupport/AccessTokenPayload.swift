import Crypto
import Foundation
import JWTKit

/// The claims of an access token: signed by patron, verified by the gateway.
public struct AccessTokenPayload: JWTPayload, Equatable {
    public var sub: SubjectClaim
    public var exp: ExpirationClaim
    public var iat: IssuedAtClaim
    /// The session (refresh-token family) this token belongs to.
    public var sid: String
    /// The patron's type when it limits what they see (`teen`, `child`; `AudienceLimit`), as it was when the token was
    /// issued: a change shows with the next token.
    public var ptype: String?

    public init(patronID: UUID, sessionID: UUID, issuedAt: Date, lifetime: TimeInterval, patronType: String? = nil) {
        sub = SubjectClaim(value: patronID.lowercased)
        iat = IssuedAtClaim(value: issuedAt)
        exp = ExpirationClaim(value: issuedAt.addingTimeInterval(lifetime))
        sid = sessionID.lowercased
        ptype = patronType
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }

    public var patronID: UUID? { UUID(uuidString: sub.value) }
}
