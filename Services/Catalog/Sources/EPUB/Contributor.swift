import Foundation

/// A contributor with role (MARC relator, `aut` for authors) and sort name.
struct Contributor: Codable, Sendable, Equatable {
    var name: String
    var sortAs: String?
    var role: String
}
