import Foundation

/// OAuth-style token response of `/auth/token`, `/auth/refresh` and `/auth/signup`.
public struct TokenResponse: Codable, Sendable {
    public var accessToken: String
    public var tokenType: String
    public var expiresIn: Int
    public var refreshToken: String

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in", refreshToken = "refresh_token"
    }

    public init(accessToken: String, expiresIn: Int, refreshToken: String) {
        self.accessToken = accessToken
        self.tokenType = "Bearer"
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
    }
}

/// A Readium locator: where in a book a bookmark or a reading position points.
public struct Locator: Codable, Sendable, Equatable {
    public struct Locations: Codable, Sendable, Equatable {
        public var progression: Double?
        public var totalProgression: Double?
        public var position: Int?
        public var cfi: String?
        public var fragments: [String]?

        public init(progression: Double? = nil, totalProgression: Double? = nil, position: Int? = nil, cfi: String? = nil, fragments: [String]? = nil) {
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

/// Reader settings of the product notes.
public struct ReaderSettings: Codable, Sendable, Equatable {
    public var fontFamily: String
    public var fontSize: Int
    public var theme: String
    public var brightness: Double
    public var syncBookmarks: Bool

    public init(fontFamily: String = "serif", fontSize: Int = 100, theme: String = "day", brightness: Double = 1, syncBookmarks: Bool = true) {
        self.fontFamily = fontFamily
        self.fontSize = fontSize
        self.theme = theme
        self.brightness = brightness
        self.syncBookmarks = syncBookmarks
    }

    public static let fontFamilies = ["serif", "sans-serif"]
    public static let themes = ["day", "sepia", "night"]
    public static let fontSizeRange = 50...300

    /// Why these settings are invalid, or nil when they are valid.
    public var validationFailure: String? {
        if !ReaderSettings.fontFamilies.contains(fontFamily) { return "fontFamily must be one of \(ReaderSettings.fontFamilies)" }
        if !ReaderSettings.fontSizeRange.contains(fontSize) { return "fontSize must be a percentage from 50 to 300" }
        if !ReaderSettings.themes.contains(theme) { return "theme must be one of \(ReaderSettings.themes)" }
        if !(0...1).contains(brightness) { return "brightness must be between 0 and 1" }
        return nil
    }
}
