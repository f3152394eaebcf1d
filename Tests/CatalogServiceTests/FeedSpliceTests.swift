import Foundation
import NIOCore
import ServiceSupport
import Shared
import Testing

@testable import CatalogService

/// A patron's page as an edit of the shared page (`FeedSplice`): applied to the shared page's bytes, it gives the bytes
/// the patron's page renders to, in Atom and in OPDS 2.0, whatever differs: an entry's view, a book hidden and one
/// come up from beyond the page, the head's counts and links.
@Suite struct FeedSpliceTests {
    static let base = "https://library.example"

    static func book(_ number: Int) -> BookEntry {
        var book = EntryLinksTests.book()
        book.id = UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number))!
        book.metadata.title = "Book \(number), \"quoted\" & <marked>"
        book.updatedAt = Date(timeIntervalSince1970: 1_780_000_000 + Double(number))
        return book
    }

    static func feed(_ numbers: [Int], views: [Int: BookState] = [:], total: Int? = nil, next: Bool = true) -> Feed {
        var feed = Feed(
            id: base + "/opds/lanes/new",
            title: "New",
            kind: .acquisition,
            links: [Feed.Link(rel: "self", href: base + "/opds/lanes/new", type: MediaType.acquisition)]
        )
        if next { feed.links.append(Feed.Link(rel: "next", href: base + "/opds/lanes/new?after=x", type: MediaType.acquisition)) }
        feed.links.append(.facet(base + "/opds/lanes/new?sort=title", title: "Title", group: "Sort by", active: false))
        feed.totalResults = total
        feed.itemsPerPage = 4
        feed.entries = numbers.map { number in
            let book = book(number)
            return Entry(book: book, view: views[number].map { PatronBookView(bookId: book.id, state: $0) }, publicURL: base)
        }
        return feed
    }

    /// The shared page's bytes and places, as `FeedResponder` keeps them.
    static func rendered(_ feed: Feed, json: Bool) -> (ByteBuffer, RenderedFeed) {
        var ranges: [Range<Int>] = []
        let bytes: ByteBuffer
        if json {
            var writer = JSONWriter()
            OPDS2Renderer.feed(feed, publicURL: base).write(to: &writer, publicationRanges: &ranges)
            bytes = ByteBuffer(bytes: writer.bytes)
        } else {
            bytes = AtomRenderer.feed(feed, entryRanges: &ranges)
        }
        return (bytes, RenderedFeed(feed: feed, rows: nil, entryRanges: ranges))
    }

    @Test(arguments: [false, true])
    func aSplicedPageIsThePageRenderedWhole(json: Bool) throws {
        let shared = Self.feed([1, 2, 3, 4])
        let (sharedBytes, base) = Self.rendered(shared, json: json)
        let patrons = [
            ("a loan", Self.feed([1, 2, 3, 4], views: [2: .notDownloaded])),
            ("a saved book", Self.feed([1, 2, 3, 4], views: [3: .saved])),
            ("a loan and a hold at the ends", Self.feed([1, 2, 3, 4], views: [1: .opened, 4: .waitingForLoan])),
            ("the first book hidden", Self.feed([2, 3, 4, 5])),
            ("a middle book hidden, the last page", Self.feed([1, 3, 4], views: [4: .notDownloaded], next: false)),
            ("a new total", Self.feed([1, 2, 3, 4], views: [2: .notDownloaded], total: 41)),
            ("another order", Self.feed([2, 1, 3, 4])),
            ("other books", Self.feed([7, 8])),
        ]
        for (what, feed) in patrons {
            let splice = try #require(FeedSplice.splice(feed, onto: base, sharedBytes: sharedBytes, json: json, publicURL: Self.base), "\(what)")
            let whole = Self.rendered(feed, json: json).0
            #expect(splice.applied(to: sharedBytes) == whole, "\(what)")
            let read = try #require(PageSplice(header: splice.header, bytes: splice.bytes), "\(what): the header reads back")
            #expect(read == splice)
        }
        let saved = try #require(FeedSplice.splice(patrons[1].1, onto: base, sharedBytes: sharedBytes, json: json, publicURL: Self.base))
        #expect(saved.parts.isEmpty, "a saved book shows as it does to everyone")
        let loan = try #require(FeedSplice.splice(patrons[0].1, onto: base, sharedBytes: sharedBytes, json: json, publicURL: Self.base))
        #expect(loan.parts.count == 1 && loan.bytes.readableBytes < sharedBytes.readableBytes / 2, "only the loan's entry is sent")
        // The head is kept as it lies, not rendered again, only when it would render the same.
        #expect(patrons[0].1.hasTheSameHead(as: shared), "a loan changes no link, total or date")
        #expect(!patrons[5].1.hasTheSameHead(as: shared), "a new total")
        #expect(!patrons[4].1.hasTheSameHead(as: shared), "no next link")
    }

    @Test func pagesWithoutPlacesOrEntriesAreRenderedWhole() {
        let shared = Self.feed([1, 2])
        let (bytes, base) = Self.rendered(shared, json: true)
        #expect(FeedSplice.splice(Self.feed([]), onto: base, sharedBytes: bytes, json: true, publicURL: Self.base) == nil)
        let placeless = RenderedFeed(feed: shared, rows: nil)
        #expect(
            FeedSplice.splice(Self.feed([1, 2], views: [1: .opened]), onto: placeless, sharedBytes: bytes, json: true, publicURL: Self.base) == nil
        )
    }
}
