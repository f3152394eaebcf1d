import Foundation

/// Answer of `GET /internal/sessions/{id}`: whether a sign-in session is still open (not logged out, not revoked for
/// refresh-token reuse, its account not deleted). The gateway asks before it trusts an access token of the session.
/// `patronId` is the session's owner: the gateway accepts a token only for the patron whose session it names.
public struct SessionStatus: Codable, Sendable {
    public var open: Bool
    public var patronId: UUID?

    public init(open: Bool, patronId: UUID?) {
        self.open = open
        self.patronId = patronId
    }
}
