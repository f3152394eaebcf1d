import Foundation

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
