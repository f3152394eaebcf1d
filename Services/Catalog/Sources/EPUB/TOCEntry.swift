import Foundation

/// One entry of a table of contents, page list or landmarks list.
struct TOCEntry: Codable, Sendable, Equatable {
    var title: String
    var href: String
    var children: [TOCEntry]

    var count: Int { 1 + children.reduce(0) { $0 + $1.count } }
    var depth: Int { 1 + (children.map(\.depth).max() ?? 0) }
}
