import Foundation
import HTTPTypes
import ServiceSupport
import Shared

/// What a signed-in patron sees differently on a feed page: their books' states (links, availability) and the books
/// they ignore (left out). Read from catalog's copy of their shelf (`ShelfCopyPostgresRepository`), never from patron.
struct PatronOverlay: Sendable {
    /// nil for an anonymous visitor.
    var shelf: PatronShelf?
    /// The version of the shelf copy: part of every personalised ETag.
    var version: Int64 = 0
    /// The rows the shared page of the same request was made from (`FeedPageCache`): a page whose books the patron's
    /// hidden books would not change is made from them, without reading them again.
    var sharedRows: FeedPostgresRepository.Page?
    /// The shared page the gateway holds for this request, uncompressed, when it can splice the patron's own entries
    /// into it (`FeedSplice`): the patron's page is then answered as the bytes that differ from it.
    var spliceOnto: StoredResponse?
    /// For an anonymous visitor's page computed again: the copy the feed cache holds of it (stale), which
    /// `FeedResponder.render` keeps when the page is the same feed.
    var heldPage: StoredResponse?

    /// A teen's or a child's card (`audience=`): its pages show only the books it fits.
    var limit: AudienceLimit?

    static let anonymous = PatronOverlay(shelf: nil)

    var views: [UUID: PatronBookView] { Dictionary(shelf?.books.map { ($0.bookId, $0) } ?? [], uniquingKeysWith: { $1 }) }
    var hidden: [UUID] { shelf?.ignored ?? [] }

    /// The books whose entries this patron sees differently from an anonymous visitor (`Entry.showsDifferently`), or
    /// not at all (ignored).
    var touched: Set<UUID> { Set((shelf?.books.filter(Entry.showsDifferently).map(\.bookId) ?? []) + hidden) }

    /// `shared` (a page as every visitor gets it) as this patron gets it: the same bytes, private, under an ETag
    /// that also covers the shelf's version, so that it changes when the shelf does and not otherwise.
    func personalised(_ shared: StoredResponse) -> StoredResponse {
        var page = shared
        page.headers[.cacheControl] = PersonalPage.cacheControl
        if let etag = shared.headers[.eTag] { page.headers[.eTag] = personalETag(etag) }
        return page
    }

    /// The shared page's ETag with the shelf's version in front (`PersonalPage.etag`).
    func personalETag(_ sharedETag: String) -> String { PersonalPage.etag(shared: sharedETag, shelfVersion: version) }

    /// Whether a page showing `books` is, for this patron, the page every visitor gets (`PersonalPage.isShared`).
    func sharesPage(showing books: Set<UUID>) -> Bool { PersonalPage.isShared(pageBooks: books, touched: touched) }
}
