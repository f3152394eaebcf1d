import Crypto
import Foundation
import JWTKit

/// HMAC-SHA256 signing keys derived from `JWT_SECRET` (and `JWT_PREVIOUS_SECRET` during a rotation). Each key
/// gets a key id from its fingerprint; tokens are signed with the current key and verified with either.
public struct AccessTokenKeys: Sendable {
    public let keys: JWTKeyCollection
    public let currentKeyID: JWKIdentifier

    public init(secret: String, previousSecret: String? = nil) async {
        let collection = JWTKeyCollection()
        let current = Self.derive(secret)
        await collection.add(hmac: HMACKey(key: current.key), digestAlgorithm: .sha256, kid: current.kid)
        if let previousSecret, !previousSecret.isEmpty {
            let previous = Self.derive(previousSecret)
            await collection.add(hmac: HMACKey(key: previous.key), digestAlgorithm: .sha256, kid: previous.kid)
        }
        keys = collection
        currentKeyID = current.kid
    }

    /// A 32-byte key (jwt-kit refuses shorter ones) and its key id.
    static func derive(_ secret: String) -> (key: SymmetricKey, kid: JWKIdentifier) {
        let key = SymmetricKey(data: SHA256.hash(data: Data(("bookmobile-access:" + secret).utf8)))
        let fingerprint = SHA256.hash(data: key.withUnsafeBytes { Data($0) }).prefix(6).map { String(format: "%02x", $0) }.joined()
        return (key, JWKIdentifier(string: fingerprint))
    }

    public func sign(_ payload: AccessTokenPayload) async throws -> String {
        try await keys.sign(payload, kid: currentKeyID)
    }

    /// The payload of a valid, unexpired token signed by one of the keys; throws otherwise.
    public func verify(_ token: String) async throws -> AccessTokenPayload {
        try await keys.verify(token, as: AccessTokenPayload.self)
    }
}
