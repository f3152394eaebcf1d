import Foundation

/// Answer of `POST /internal/auth/basic` when the credentials are good.
public struct AuthenticatedPatron: Codable, Sendable {
    public var patronId: UUID

    public init(patronId: UUID) { self.patronId = patronId }
}
