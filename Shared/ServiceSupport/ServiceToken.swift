import Crypto
import Foundation

/// The shared secret that proves a request comes from another Bookmobile process.
public struct ServiceToken: Sendable {
    public let value: String
    /// The signature that must come with a vouched patron (`PatronIdentity`); without one, no patron is trusted.
    public let identity: PatronIdentity?

    public init(_ value: String, identity: PatronIdentity? = nil) {
        self.value = value
        self.identity = identity
    }

    /// Constant-time comparison with the token a request carries.
    public func matches(_ candidate: String?) -> Bool {
        guard let candidate else { return false }
        let a = Array(SHA256.hash(data: Data(value.utf8)))
        let b = Array(SHA256.hash(data: Data(candidate.utf8)))
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
