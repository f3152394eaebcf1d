import Foundation
import Shared

/// A reading position: one per patron and book, last writer by timestamp wins.
struct ReadingPosition: Codable, Sendable {
    var locator: Locator
    var timestamp: Date
    var device: String
}
