import Foundation

/// Answer of `POST /internal/auth/basic` when the credentials are good.
public struct AuthenticatedPatron: Codable, Sendable {
    public var patronId: UUID
    /// A digest of the patron's stored secret hash (`SecretStamp`): it changes with the PIN or password, so the gateway
    /// can keep this verdict and ask only, cheaply, whether the stamp is still the same.
    public var secretStamp: String?
    /// The patron's type (`adult`, `teen`, `child`; nil: adult): a teen's or a child's card sees only the books it
    /// fits (`AudienceLimit`).
    public var patronType: String?

    public init(patronId: UUID, secretStamp: String? = nil, patronType: String? = nil) {
        self.patronId = patronId
        self.secretStamp = secretStamp
        self.patronType = patronType
    }
}
