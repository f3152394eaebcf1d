import Foundation

/// Answer of `GET /internal/patrons/{id}/secret-stamp`: the stamp of the patron's current secret (nil when the account
/// is gone). A Basic verdict the gateway holds stands while the stamp it was given with is still the current one.
public struct SecretStamp: Codable, Sendable {
    public var stamp: String?

    public init(stamp: String?) { self.stamp = stamp }
}

/// Answer of `POST /internal/patrons/secret-stamps` (`IDsAsked`): each patron asked about, by id (lower case), with the
/// stamp of their current secret, null when the account is gone.
public struct SecretStamps: Codable, Sendable {
    public var stamps: [String: String?]

    public init(stamps: [String: String?]) { self.stamps = stamps }
}
