import Foundation
import Testing

@testable import TestSupport

/// A signed-in patron's page that shows their own books is the shared page the gateway holds with their entries
/// spliced in (`PageSplice`, issue 72), byte for byte the page catalog renders whole for them.
@Suite struct SplicedPageTests {
    /// Ann borrows one book of the lane and waits for another. Her page, asked without compression, is spliced by the
    /// gateway (its ETag says so); asked with gzip (a page the gateway holds compressed, which catalog renders whole for
    /// her) it inflates to the same bytes, in Atom and in OPDS 2.0. A book she hides on the page moves the others, so
    /// catalog renders that page whole; an unchanged spliced page answers 304 to its ETag.
    @Test func aSplicedPageIsThePageCatalogRendersWhole() async throws {
        try await Stack.run(["SHARED_PAGE_VERDICT_TTL": "0"]) { stack in
            let api = stack.gateway
            var ids: [String] = []
            for file in Stack.corpus.prefix(5) { ids.append(try await stack.ingest(file, copies: 1)) }
            let (_, annToken) = try await stack.signUp(pin: "1111")
            let (_, bobToken) = try await stack.signUp(pin: "2222")
            let ann = GatewayClient.Credentials.bearer(annToken)
            for id in ids { try await stack.waitForLicence(id, token: annToken) }
            #expect(try await api.call(.POST, "/me/books/\(ids[0])/borrow", as: ann).status == 201)
            #expect(try await api.call(.POST, "/me/books/\(ids[1])/borrow", as: .bearer(bobToken)).status == 201)
            #expect(try await api.call(.POST, "/me/books/\(ids[1])/hold", as: ann).status == 201)
            let lane = "/opds/lanes/new"
            // Without decompression, so that a request without Accept-Encoding gets the page as the gateway holds it.
            try await withPlainClient { plain in
                func get(_ who: GatewayClient.Credentials?, _ headers: [(String, String)]) async throws -> GatewayClient.Reply {
                    try await api.call(.GET, lane, as: who, headers: headers, through: plain)
                }
                for accept in ["application/atom+xml;profile=opds-catalog", "application/opds+json"] {
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
                        let whole = try await gunzip(zipped.body)
                        difference = SignedInFeedTests.difference(spliced.text, String(decoding: whole, as: UTF8.self))
                        return spliced.body == whole && spliced.headers.first(name: "etag")?.wholeMatch(of: /"v\d+s-.*"/) != nil
                    }
                    #expect(spliced.status == 200)
                    let etag = try #require(spliced.headers.first(name: "etag"))
                    #expect(etag.wholeMatch(of: /"v\d+s-.*"/) != nil, "\(accept): spliced by the gateway, not rendered whole: \(etag)")
                    #expect(spliced.headers.first(name: "content-length") == String(spliced.body.count))
                    #expect(spliced.text.contains(ids[0]) && spliced.text.contains(ids[1]))
                    #expect(try await get(ann, [("Accept", accept), ("If-None-Match", etag)]).status == 304)
                }
                #expect((200..<300).contains(try await api.call(.PUT, "/me/books/\(ids[2])/ignored", as: ann).status))
                let hiding = try await get(ann, [("Accept", "application/opds+json")])
                #expect(hiding.headers.first(name: "etag")?.wholeMatch(of: /"v\d+s-.*"/) == nil, "rendered whole by catalog")
                #expect(!publicationIDs(hiding.json).contains(ids[2]) && publicationIDs(hiding.json).contains(ids[0]))
            }
        }
    }
}
