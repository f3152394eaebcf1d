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
