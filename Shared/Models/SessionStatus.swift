import Foundation

/// Answer of `GET /internal/sessions/{id}`: whether a sign-in session is still open (not logged out, not revoked for
/// refresh-token reuse, its account not deleted). The gateway asks before it trusts an access token of the session.
public struct SessionStatus: Codable, Sendable {
    public var open: Bool

    public init(open: Bool) { self.open = open }
}
