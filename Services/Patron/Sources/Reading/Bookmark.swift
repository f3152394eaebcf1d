import Foundation
import Shared

/// A bookmark as the API shows it.
struct Bookmark: Codable, Sendable {
    var id: UUID
    var bookId: UUID
    var locator: Locator
    var chapter: String?
    var snippet: String?
    var device: String?
    var createdAt: Date
}

/// Body of `POST /me/books/{id}/bookmarks`. `locator.progression` may stand for `locator.locations.progression`.
struct BookmarkRequest: Decodable {
    struct LocatorInput: Decodable {
        var href: String
        var type: String?
        var title: String?
        var locations: Locator.Locations?
        var progression: Double?
        var text: Locator.Text?
    }

    var locator: LocatorInput
    var chapter: String?
    var snippet: String?
    var device: String?

    /// The validated locator; a 400 problem for an empty href or a progression outside [0, 1].
    func validatedLocator() throws -> Locator {
        var locations = locator.locations ?? Locator.Locations()
        if locations.progression == nil { locations.progression = locator.progression }
        let result = Locator(href: locator.href, type: locator.type, title: locator.title, locations: locations, text: locator.text)
        try ReadingValidation.check(result)
        for (name, value) in [("chapter", chapter), ("snippet", snippet), ("device", device)] where (value?.count ?? 0) > 1000 {
            throw Problem.badRequest("\(name) must be at most 1000 characters")
        }
        return result
    }
}

/// Rules for locators shared by bookmarks and positions.
enum ReadingValidation {
    static func check(_ locator: Locator) throws {
        guard !locator.href.isEmpty, locator.href.count <= 2000 else { throw Problem.badRequest("locator.href is required") }
        for (name, value) in [("progression", locator.locations.progression), ("totalProgression", locator.locations.totalProgression)] {
            if let value, !(0...1).contains(value) { throw Problem.badRequest("locator.locations.\(name) must be between 0 and 1") }
        }
        if let position = locator.locations.position, position < 0 { throw Problem.badRequest("locator.locations.position must not be negative") }
    }

    /// The identity of a place in a book: the same place twice is one bookmark.
    static func key(_ locator: Locator) -> String {
        let l = locator.locations
        let href = locator.href.split(separator: "#", maxSplits: 1).first.map(String.init) ?? locator.href
        return [href, l.progression.map { String(format: "%.6f", $0) } ?? "", l.position.map(String.init) ?? "", l.cfi ?? ""].joined(separator: "|")
    }
}

/// A reading position: one per patron and book, last writer by timestamp wins.
struct ReadingPosition: Codable, Sendable {
    var locator: Locator
    var timestamp: Date
    var device: String
}
