import Foundation
import Shared

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
