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

/// Answer of `POST /internal/sessions/statuses` (`IDsAsked`): each session asked about, by its id (lower case), as
/// `GET /internal/sessions/{id}` would answer it.
public struct SessionStatuses: Codable, Sendable {
    public var sessions: [String: SessionStatus]

    public init(sessions: [String: SessionStatus]) { self.sessions = sessions }
}
