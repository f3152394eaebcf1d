import Foundation
import Testing

@testable import TestSupport

/// A signed-in patron's page that shows their own books is the shared page the gateway holds with their entries
/// spliced in (`PageSplice`, issue 72), byte for byte the page catalog renders whole for them.
@Suite struct SplicedPageTests {
    /// Ann borrows one book of the lane and waits for another. Her page, asked without compression, is spliced by the
    /// gateway (its ETag says so); asked with gzip (a page the gateway holds compressed, which catalog renders whole for
    /// her) it inflates to the same bytes, in Atom and in OPDS 2.0. So is her page once she hides a book on it (the
    /// books after it move up, one comes from beyond the page); an unchanged spliced page answers 304 to its ETag.
    @Test func aSplicedPageIsThePageCatalogRendersWhole() async throws {
        try await Stack.run(["SHARED_PAGE_VERDICT_TTL": "0"]) { stack in
            let api = stack.gateway
            var ids: [String] = []
            for file in await Stack.corpus.prefix(5) { ids.append(try await stack.ingest(file, copies: 1)) }
            let (_, annToken) = try await stack.signUp(pin: "1111")
            let (_, bobToken) = try await stack.signUp(pin: "2222")
            let ann = GatewayClient.Credentials.bearer(annToken)
            for id in ids { try await stack.waitForLicence(id, token: annToken) }
            // Four to a page: hiding one on it brings the fifth book up from beyond the page.
            let lane = "/opds/lanes/new?size=4"
            let json = "application/opds+json"
            let shown = publicationIDs(try await api.call(.GET, lane, headers: [("Accept", json)]).json)
            try #require(shown.count == 4)
            let (loan, hold, hidden) = (shown[0], shown[1], shown[3])
            #expect(try await api.call(.POST, "/me/books/\(loan)/borrow", as: ann).status == 201)
            #expect(try await api.call(.POST, "/me/books/\(hold)/borrow", as: .bearer(bobToken)).status == 201)
            #expect(try await api.call(.POST, "/me/books/\(hold)/hold", as: ann).status == 201)
            // Without decompression, so that a request without Accept-Encoding gets the page as the gateway holds it.
            try await withPlainClient { plain in
                func get(_ who: GatewayClient.Credentials?, _ headers: [(String, String)]) async throws -> GatewayClient.Reply {
                    try await api.call(.GET, lane, as: who, headers: headers, through: plain)
                }
                func spliced(_ accept: String) async throws -> GatewayClient.Reply {
                    // The shared page and the page catalog renders whole are read moments apart: until catalog's rows
                    // count Ann's hold (patron tells it a moment later), the two may differ by that count alone, and
                    // while the gateway's copy is older than catalog's, catalog renders her page whole.
                    var spliced = try await get(ann, [("Accept", accept)])
                    var difference = ""
                    try await eventually(timeout: .seconds(30), "\(accept): the spliced page is the page rendered whole: \(difference)") {
                        // Anonymous first, as a browsing crowd would have: the gateway holds the shared page uncompressed.
                        #expect(try await get(nil, [("Accept", accept)]).status == 200)
                        spliced = try await get(ann, [("Accept", accept)])
                        let zipped = try await get(ann, [("Accept", accept), ("Accept-Encoding", "gzip")])
                        #expect(zipped.headers.first(name: "content-encoding") == "gzip")
                        #expect(zipped.headers.first(name: "etag")?.wholeMatch(of: /"v\d+s-.*"/) == nil, "a gzipped copy is not spliced")
                        let whole = try await gunzip(zipped.body)
                        difference = SignedInFeedTests.difference(spliced.text, String(decoding: whole, as: UTF8.self))
                        return spliced.body == whole && spliced.headers.first(name: "etag")?.wholeMatch(of: /"v\d+s-.*"/) != nil
                    }
                    #expect(spliced.status == 200)
                    #expect(spliced.headers.first(name: "content-length") == String(spliced.body.count))
                    let etag = try #require(spliced.headers.first(name: "etag"))
                    // 304 while the page stands; catalog's copy of Ann's shelf may move to a newer version a moment
                    // after her change (patron publishes it), and then the page is sent again under another ETag.
                    let again = try await get(ann, [("Accept", accept), ("If-None-Match", etag)])
                    #expect(again.status == 304 || (again.status == 200 && again.headers.first(name: "etag") != etag), "\(again.status)")
                    return spliced
                }
                let formats = ["application/atom+xml;profile=opds-catalog", json]
                for accept in formats {
                    let page = try await spliced(accept)
                    #expect(page.text.contains(loan) && page.text.contains(hold), "her loan and her hold")
                }
                #expect((200..<300).contains(try await api.call(.PUT, "/me/books/\(hidden)/ignored", as: ann).status))
                for accept in formats {
                    let page = try await spliced(accept)
                    #expect(!page.text.contains(hidden) && page.text.contains(loan), "\(accept): the hidden book is gone")
                }
                let hiding = publicationIDs(try await spliced(json).json)
                #expect(hiding.count == 4 && Set(hiding).isSuperset(of: shown.filter { $0 != hidden }), "a book from beyond the page")
            }
        }
    }
}
