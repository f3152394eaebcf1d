import Foundation
import Shared
import Testing

/// The one rule both catalog and the gateway apply to a signed-in page, and the header that carries a page's books.
@Suite struct PersonalPageTests {
    let a = UUID()
    let b = UUID()

    @Test func aPageIsSharedOnlyWhenTheShelfTouchesNoneOfItsBooks() {
        #expect(PersonalPage.isShared(pageBooks: [a], touched: [b]))
        #expect(!PersonalPage.isShared(pageBooks: [a, b], touched: [b]))
        #expect(PersonalPage.etag(shared: "\"abc\"", shelfVersion: 42) == "\"v42-abc\"")
        #expect(PersonalPage.splicedETag(shared: "\"abc\"", shelfVersion: 42, parts: "f00d") == "\"v42s-f00d-abc\"")
    }

    @Test func thePageBooksHeaderReadsBackAndAnythingElseSharesNothing() {
        #expect(PersonalPage.pageBooks(fromHeader: PersonalPage.pageBooksHeader([a, b])) == [a, b])
        #expect(PersonalPage.pageBooks(fromHeader: PersonalPage.pageBooksHeader([])) == [])
        #expect(PersonalPage.pageBooks(fromHeader: "\(a.uuidString),not-a-book") == nil, "one bad id: the page is not shared")
        #expect(PersonalPage.pageBooks(fromHeader: "\(a.uuidString),,\(b.uuidString)") == nil)
    }
}
