import Foundation

/// Body of catalog's `PUT /internal/patrons/{id}/erasure`, sent through patron's outbox when an account is deleted:
/// catalog forgets what it holds of the patron (their lists, the copy of their shelf).
public struct PatronErasure: Codable, Sendable, Equatable {
    public var patronId: UUID

    public init(patronId: UUID) { self.patronId = patronId }
}
