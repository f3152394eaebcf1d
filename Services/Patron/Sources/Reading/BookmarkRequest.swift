import Foundation
import Shared

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
