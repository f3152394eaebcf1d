import Foundation
import Shared

/// A feed, independent of its serialisation (OPDS 1.2 Atom or OPDS 2.0 JSON render the same content). Two equal feeds
/// render to the same bytes (`FeedResponder` keeps a page computed again as the same feed without rendering it).
struct Feed: Sendable, Equatable {
    enum Kind: Sendable { case navigation, acquisition }

    struct Link: Sendable, Equatable {
        var rel: String
        var href: String
        var type: String
        var title: String?
        var facetGroup: String?
        var activeFacet = false
        var templated = false
        var count: Int?

        /// A facet of an acquisition listing (OPDS `rel="http://opds-spec.org/facet"`), one of its `group`.
        static func facet(_ href: String, title: String, group: String, active: Bool) -> Link {
            Link(rel: "http://opds-spec.org/facet", href: href, type: MediaType.acquisition, title: title, facetGroup: group, activeFacet: active)
        }
    }

    struct Group: Sendable, Equatable {
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
        var newest: Date?
        forEachEntry { entry in newest = max(newest ?? entry.book.updatedAt, entry.book.updatedAt) }
        return newest ?? Self.navigationUpdated
    }

    /// Whether the feed's head (all before its own entries, the `updated` they give included) is `other`'s: it renders
    /// to the same bytes.
    func hasTheSameHead(as other: Feed) -> Bool {
        guard updated == other.updated else { return false }
        var (mine, theirs) = (self, other)
        mine.entries = []
        theirs.entries = []
        return mine == theirs
    }

    /// The ids of the feed's books, its groups' too.
    var bookIDs: Set<UUID> {
        var ids = Set<UUID>(minimumCapacity: entries.count)
        forEachEntry { ids.insert($0.book.id) }
        return ids
    }

    /// Every entry, the groups' after the feed's own, without copying them into one array (each carries a whole book).
    func forEachEntry(_ body: (Entry) -> Void) {
        // By index: `for entry in entries` copied each entry (every field of its book retained and released).
        for index in entries.indices { body(entries[index]) }
        for group in groups.indices { for index in groups[group].entries.indices { body(groups[group].entries[index]) } }
    }

    static let navigationUpdated = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
}
