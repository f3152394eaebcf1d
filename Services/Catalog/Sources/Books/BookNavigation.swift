import Foundation

/// How a book is read through: its reading order, every resource of its package, and its navigation documents (table
/// of contents, page list, landmarks). Ingest reads them; the catalog keeps them in their own columns, read only for a
/// single book (its Readium manifest, its table of contents, its resources).
struct BookNavigation: Codable, Sendable, Equatable {
    var readingOrder: [PackageResource]
    /// Every item of the package's manifest (the reading order included).
    var resources: [PackageResource]
    var toc: [TOCEntry]
    var pageList: [TOCEntry]
    var landmarks: [TOCEntry]

    /// A book read without its navigation (a list's record): nothing to show.
    static let empty = BookNavigation(readingOrder: [], resources: [], toc: [], pageList: [], landmarks: [])
}
