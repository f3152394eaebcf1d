import Foundation

/// Body of the gateway's batched checks (`POST /internal/sessions/statuses`, `POST /internal/patrons/secret-stamps`):
/// the ids it asks about, at most `limit` at once.
public struct IDsAsked: Codable, Sendable {
    public var ids: [UUID]

    public static let limit = 1_000

    public init(ids: [UUID]) { self.ids = ids }
}
