import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PostgresNIO
import ServiceSupport
import Shared
import Synchronization
import Testing

@testable import CatalogService

/// An anonymous page computed again as the same feed is the copy held, not rendered again (`FeedResponder.render`);
/// any change to the feed renders it, and a patron's page never takes the anonymous copy; the feed cache hands the
/// computation the copy it holds (`FeedPageCache`).
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
        book.updatedAt = Feed.navigationUpdated
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

    /// A page made for one patron is compressed fast (it serves one request), a page kept for everyone as hard as zlib's
    /// default; two encodings, two ETags.
    @Test func aPatronsPageIsCompressedFastAndTaggedAsSuch() throws {
        var head = HTTPRequest(method: .get, scheme: "http", authority: "localhost", path: "/opds/lanes/new")
        head.headerFields[.acceptEncoding] = "gzip"
        let request = Request(head: head, body: .init(buffer: ByteBuffer()))
        var many = feed(available: 1)
        many.entries = Array(repeating: many.entries[0], count: 20)
        var patron = PatronOverlay.anonymous
        patron.shelf = PatronShelf(books: [], ignored: [], waitingForAction: 0)
        let everyone = try responder.render(many, request: request, for: .anonymous)
        let theirs = try responder.render(many, request: request, for: patron)
        #expect(everyone.headers[.contentEncoding] == "gzip" && theirs.headers[.contentEncoding] == "gzip")
        #expect(everyone.headers[.eTag]?.hasSuffix("-gz\"") == true && theirs.headers[.eTag]?.hasSuffix("-gz1\"") == true)
        #expect(everyone.body != theirs.body, "the same page at two levels")
    }

    /// The feed cache hands a page's computation the copy it holds when it computes the page again (stale), and none
    /// when it has none: what lets `render` keep an unchanged page without rendering it.
    @Test func aPageComputedAgainIsHandedTheCopyTheFeedCacheHolds() async throws {
        let clock = Mutex(ContinuousClock.now)
        let now: @Sendable () -> ContinuousClock.Instant = { clock.withLock { $0 } }
        // Never reached: an anonymous page asks nothing of the shelves.
        let nowhere = PostgresClient(configuration: .init(host: "127.0.0.1", port: 1, username: "none", password: nil, database: nil, tls: .disable))
        let pages = FeedPageCache(
            shelves: PatronShelves(
                copies: ShelfCopyPostgresRepository(client: nowhere),
                patron: InternalClient(baseURLs: ["http://127.0.0.1:1"], token: ServiceToken("unused"))
            ),
            cache: ResponseCache(name: "test", lifetime: .seconds(5), capacityBytes: 1 << 20, now: now),
            personalCache: ResponseCache(name: "test-personal", lifetime: .seconds(5), capacityBytes: 1 << 20, now: now)
        )
        let handed = Mutex<[String?]>([])
        let router = Router(context: CatalogRequestContext.self)
        router.get("/page") { request, context in
            try await pages.serve { _, _, overlay in
                handed.withLock { $0.append(overlay.heldPage?.headers[.eTag]) }
                return StoredResponse(body: ByteBuffer(string: "the page"), headers: [.eTag: "\"e1\"", .cacheControl: "public, max-age=30"])
            }(request, context)
        }
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/page", method: .get) { #expect($0.status == .ok) }
            clock.withLock { $0 += .seconds(6) }
            try await client.execute(uri: "/page", method: .get, headers: [.staleRefresh: "yes"]) { #expect($0.status == .ok) }
        }
        #expect(handed.withLock { $0 } == [nil, "\"e1\""], "none at first; the stale copy when computed again")
    }
}
