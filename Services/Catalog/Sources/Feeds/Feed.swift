import Foundation
import Shared

/// A feed, independent of its serialisation (OPDS 1.2 Atom or OPDS 2.0 JSON render the same content).
struct Feed: Sendable {
    enum Kind: Sendable { case navigation, acquisition }

    struct Link: Sendable {
        var rel: String
        var href: String
        var type: String
        var title: String?
        var facetGroup: String?
        var activeFacet = false
        var templated = false
        var count: Int?
    }

    struct Group: Sendable {
        var title: String
        var href: String
        var entries: [Entry]
    }

    var id: String
    var title: String
    var kind: Kind
    var links: [Link]
    var navigation: [Link] = []
    var entries: [Entry] = []
    var groups: [Group] = []
    var totalResults: Int?
    var itemsPerPage: Int?

    /// The newest change among the feed's books. Derived from the content, never the clock, so that the same
    /// content has the same bytes and ETag; a feed without books (navigation) has a fixed date.
    var updated: Date {
        (entries + groups.flatMap(\.entries)).map(\.book.updatedAt).max() ?? Self.navigationUpdated
    }

    static let navigationUpdated = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
}
