import Foundation

/// Answer of `POST /internal/auth/basic` when the credentials are good.
public struct AuthenticatedPatron: Codable, Sendable {
    public var patronId: UUID
    /// A digest of the patron's stored secret hash (`SecretStamp`): it changes with the PIN or password, so the gateway
    /// can keep this verdict and ask only, cheaply, whether the stamp is still the same.
    public var secretStamp: String?

    public init(patronId: UUID, secretStamp: String? = nil) {
        self.patronId = patronId
        self.secretStamp = secretStamp
    }
}
