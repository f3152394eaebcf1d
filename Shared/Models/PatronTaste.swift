import Foundation

/// Answer of patron's `GET /internal/patrons/{id}/taste`, for the patron's recommendations: books they liked
/// (favourites, good ratings, loans; strongest first), every book they ever borrowed, and books co-borrowed with
/// those they liked.
public struct PatronTaste: Codable, Sendable, Equatable {
    public var liked: [UUID]
    public var had: [UUID]
    public var coBorrowed: [UUID]

    public init(liked: [UUID], had: [UUID], coBorrowed: [UUID]) {
        self.liked = liked
        self.had = had
        self.coBorrowed = coBorrowed
    }
}
