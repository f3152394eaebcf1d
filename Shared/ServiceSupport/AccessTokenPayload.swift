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

    public init(patronID: UUID, sessionID: UUID, issuedAt: Date, lifetime: TimeInterval) {
        sub = SubjectClaim(value: patronID.lowercased)
        iat = IssuedAtClaim(value: issuedAt)
        exp = ExpirationClaim(value: issuedAt.addingTimeInterval(lifetime))
        sid = sessionID.lowercased
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }

    public var patronID: UUID? { UUID(uuidString: sub.value) }
}
