import Foundation

/// Answer of `GET /internal/patrons/{id}/secret-stamp`: the stamp of the patron's current secret (nil when the account
/// is gone). A Basic verdict the gateway holds stands while the stamp it was given with is still the current one.
public struct SecretStamp: Codable, Sendable {
    public var stamp: String?

    public init(stamp: String?) { self.stamp = stamp }
}
