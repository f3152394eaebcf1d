import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceSupport
import Shared
import Testing

@testable import CatalogService

/// An anonymous page computed again as the same feed is the copy held, not rendered again (`FeedResponder.render`);
/// any change to the feed renders it, and a patron's page never takes the anonymous copy.
@Suite struct FeedResponderTests {
    let responder = FeedResponder(publicURL: EntryLinksTests.base)

    func request(json: Bool) -> Request {
        var head = HTTPRequest(method: .get, scheme: "http", authority: "localhost", path: "/opds/lanes/new")
        if json { head.headerFields[.accept] = MediaType.opds2 }
        return Request(head: head, body: .init(buffer: ByteBuffer()))
    }

    func feed(available: Int) -> Feed {
        var feed = Feed(id: "\(EntryLinksTests.base)/opds/lanes/new", title: "New", kind: .acquisition, links: [])
        var book = EntryLinksTests.book(available: available)
        (book.addedAt, book.updatedAt) = (Feed.navigationUpdated, Feed.navigationUpdated)
        feed.entries = [Entry(book: book, view: nil, publicURL: EntryLinksTests.base)]
        return feed
    }

    /// The held copy as the feed cache hands it over once stale: with its `Age`.
    func held(_ page: StoredResponse) -> PatronOverlay {
        var overlay = PatronOverlay.anonymous
        overlay.heldPage = page
        overlay.heldPage?.headers[.age] = "7"
        return overlay
    }

    func storage(_ page: StoredResponse) -> UnsafeRawPointer? { page.body.withUnsafeReadableBytes { $0.baseAddress.map(UnsafeRawPointer.init) } }

    @Test func theSameFeedKeepsTheHeldBytesAndAChangedOneIsRenderedAgain() throws {
        for json in [false, true] {
            let request = request(json: json)
            let first = try responder.render(feed(available: 1), request: request, for: .anonymous)
            let again = try responder.render(feed(available: 1), request: request, for: held(first))
            #expect(storage(again) == storage(first), "the same buffer: not rendered again")
            #expect(again.headers[.eTag] == first.headers[.eTag])
            #expect(again.headers[.age] == nil, "vouched for now: as new as a page just rendered")
            #expect((again.source as? RenderedFeed)?.feed == feed(available: 1), "still kept with its feed for next time")

            let changed = try responder.render(feed(available: 0), request: request, for: held(first))
            #expect(storage(changed) != storage(first))
            #expect(changed.headers[.eTag] != first.headers[.eTag], "a book's availability changed: new bytes, new ETag")
            let fresh = try responder.render(feed(available: 0), request: request, for: .anonymous)
            #expect(changed.body == fresh.body, "the page as if nothing had been held")
        }
    }

    @Test func aPatronsPageNeverTakesTheAnonymousCopy() throws {
        let request = request(json: true)
        let first = try responder.render(feed(available: 1), request: request, for: .anonymous)
        var patron = held(first)
        patron.shelf = PatronShelf(books: [], ignored: [], waitingForAction: 0)
        let theirs = try responder.render(feed(available: 1), request: request, for: patron)
        #expect(storage(theirs) != storage(first))
        #expect(theirs.source == nil, "a patron's page keeps no feed: only anonymous copies are computed again")
    }
}
