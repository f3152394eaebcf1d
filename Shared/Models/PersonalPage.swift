import Foundation

/// When a signed-in patron's feed page is the page every visitor gets, and the ETag it then carries: the one rule
/// catalog (`FeedPageCache`) and the gateway (`PersonalPagesMiddleware`, joining a page it holds with the patron's
/// shelf) both apply, so that either answers the same bytes under the same ETag.
public enum PersonalPage {
    /// A patron sees a page's entries differently only for the books on their shelf and the books they ignore.
    public static func isShared(pageBooks: Set<UUID>, touched: Set<UUID>) -> Bool {
        // The patron's few books looked up among the page's fifty, not the other way round.
        touched.count <= pageBooks.count ? touched.isDisjoint(with: pageBooks) : pageBooks.isDisjoint(with: touched)
    }

    /// The shared page's ETag with the shelf's version in front (`"v42-<shared>"`): it changes when the shelf does.
    public static func etag(shared: String, shelfVersion: Int64) -> String { "\"v\(shelfVersion)-" + shared.dropFirst() }

    /// The ETag of the shared page with a patron's own parts spliced in (`PageSplice`): the page is the shared bytes
    /// and the parts, so the shared ETag and a fingerprint of the parts name its bytes (`"v42s-<parts>-<shared>"`).
    public static func splicedETag(shared: String, shelfVersion: Int64, parts: String) -> String {
        "\"v\(shelfVersion)s-\(parts)-" + shared.dropFirst()
    }

    /// The value of `X-Internal-Page-Books` for a page showing `books`.
    public static func pageBooksHeader(_ books: Set<UUID>) -> String { books.map(\.lowercased).sorted().joined(separator: ",") }

    /// The books an `X-Internal-Page-Books` value names; nil when any of it is not a book id (then nothing is shared).
    public static func pageBooks(fromHeader value: String) -> Set<UUID>? {
        if value.isEmpty { return [] }
        let ids = value.split(separator: ",", omittingEmptySubsequences: false).map { UUID(uuidString: String($0)) }
        return ids.contains(nil) ? nil : Set(ids.compactMap { $0 })
    }

    /// The shared page's `Cache-Control` for a patron: their copy is theirs, and asked for again each time.
    public static let cacheControl = "private, no-cache"
}
