import Foundation

/// A Readium locator: where in a book a bookmark or a reading position points.
public struct Locator: Codable, Sendable, Equatable {
    public struct Locations: Codable, Sendable, Equatable {
        public var progression: Double?
        public var totalProgression: Double?
        public var position: Int?
        public var cfi: String?
        public var fragments: [String]?

        public init(progression: Double? = nil, totalProgression: Double? = nil, position: Int? = nil, cfi: String? = nil, fragments: [String]? = nil)
        {
            self.progression = progression
            self.totalProgression = totalProgression
            self.position = position
            self.cfi = cfi
            self.fragments = fragments
        }
    }

    public struct Text: Codable, Sendable, Equatable {
        public var before: String?
        public var highlight: String?
        public var after: String?

        public init(before: String? = nil, highlight: String? = nil, after: String? = nil) {
            self.before = before
            self.highlight = highlight
            self.after = after
        }
    }

    public var href: String
    public var type: String?
    public var title: String?
    public var locations: Locations
    public var text: Text?

    public init(href: String, type: String? = nil, title: String? = nil, locations: Locations, text: Text? = nil) {
        self.href = href
        self.type = type
        self.title = title
        self.locations = locations
        self.text = text
    }
}
