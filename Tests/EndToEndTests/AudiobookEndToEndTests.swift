import Foundation
import TestSupport
import Testing

/// Audiobooks and PDFs through the gateway on the three real executables (issue 69): lent by the same circulation
/// as EPUBs, tracks streamed with ranges to the borrower only, a listening position (a track and a time) kept per
/// patron and book and read back on another device.
@Suite struct AudiobookEndToEndTests {
    @Test func aBorrowedAudiobookStreamsWithRangesAndKeepsItsPlaceAcrossDevices() async throws {
        let m4b = try await TestTools.generatedMedia("m4b", ["--chapters", "3", "--seconds", "20", "--title", "Tones in Three Parts"])
        let pdf = try await TestTools.generatedMedia("pdf", ["--pages", "4", "--title", "Minutes of the Parish Council"])
        try await Stack.run { stack in
            let api = stack.gateway
            let book = try await stack.ingest(m4b, copies: 1)
            let paper = try await stack.ingest(pdf, copies: 1)
            let ann = GatewayClient.Credentials.bearer(try await stack.signUp().token)
            let bob = GatewayClient.Credentials.bearer(try await stack.signUp().token)
            try await stack.waitForLicence(book, token: try #require(Self.token(ann)))

            // The feed says what it is before anyone borrows it.
            let entry = try await stack.fetchValid("/opds/books/\(book)", kind: "publication", json: true, as: ann).json
            #expect((entry["metadata"] as? [String: Any])?["@type"] as? String == "http://schema.org/Audiobook")
            let borrow = try #require(
                (entry["links"] as? [[String: Any]])?.first { $0["rel"] as? String == "http://opds-spec.org/acquisition/borrow" }
            )
            let indirect = (borrow["properties"] as? [String: Any])?["indirectAcquisition"] as? [[String: Any]]
            #expect(indirect?.first?["type"] as? String == "application/audiobook+json")
            try await stack.fetchValid("/opds/lanes/new?format=audiobook", kind: "feed", json: true)
            let audiobooks = try await api.call(.GET, "/opds/lanes/new?format=audiobook", headers: [("Accept", "application/opds+json")]).json
            #expect(publicationIDs(audiobooks) == [book], "the format facet shows the audiobook alone")
            let found = try await stack.fetchValid("/opds/search?q=tones&format=audiobook", kind: "feed", json: true).json
            #expect(publicationIDs(found) == [book])
            let none = try await api.call(.GET, "/opds/search?q=tones&format=pdf", headers: [("Accept", "application/opds+json")]).json
            // Only the PDF, if the search's typo correction finds it at all: never the audiobook.
            #expect(publicationIDs(none).allSatisfy { $0 == paper }, "\(publicationIDs(none)), the PDF is \(paper)")

            #expect(try await api.call(.POST, "/me/books/\(book)/borrow", as: ann).status == 201)
            let manifest = try await api.call(.GET, "/books/\(book)/manifest.json", as: ann)
            #expect(manifest.headers.first(name: "content-type") == "application/audiobook+json")
            let track = try #require((manifest.json["readingOrder"] as? [[String: Any]])?.first?["href"] as? String)
            let original = try Data(contentsOf: m4b)
            let part = try await api.call(.GET, track, as: ann, headers: [("Range", "bytes=2048-4095")])
            #expect(part.status == 206 && part.body == original[2048..<4096], "\(part.status)")
            #expect(try await api.call(.GET, track).status == 401)
            #expect(try await api.call(.GET, track, as: bob).status == 403, "no loan, no listening")

            // Ann stops at 0:47, in chapter 3, on one device; another device of hers finds the place.
            let path = String(track.split(separator: "/publication/").last ?? "")
            let place =
                #"{"locator": {"href": "\#(path)", "type": "audio/mp4", "title": "Chapter 3", "locations": {"progression": 0.78, "#
                + #""totalProgression": 0.78, "fragments": ["t=47"]}}, "timestamp": "2026-12-05T10:00:00Z", "device": "phone"}"#
            #expect(try await api.call(.PUT, "/me/books/\(book)/position", as: ann, json: place).status == 200)
            let read = try await api.call(.GET, "/me/books/\(book)/position", as: ann).json
            let locator = try #require(read["locator"] as? [String: Any], "\(read)")
            #expect(locator["href"] as? String == path)
            #expect((locator["locations"] as? [String: Any])?["fragments"] as? [String] == ["t=47"])
            #expect(try await api.call(.GET, "/me/books/\(book)/position", as: bob).status != 200, "Bob has no place in Ann's book")

            // The PDF: the same circulation, the file and its pages to the borrower only.
            try await stack.waitForLicence(paper, token: try #require(Self.token(ann)))
            #expect(try await api.call(.GET, "/books/\(paper)/publication/pages/1.png?width=300", as: ann).status == 403)
            #expect(try await api.call(.POST, "/me/books/\(paper)/borrow", as: ann).status == 201)
            let file = try await api.call(.GET, "/books/\(paper)/fulfill", as: ann)
            let pdfBytes = try Data(contentsOf: pdf)
            #expect(file.status == 200 && file.body == pdfBytes)
            #expect(file.headers.first(name: "content-type") == "application/pdf")
            let page = try await api.call(.GET, "/books/\(paper)/publication/pages/1.png?width=300", as: ann)
            #expect(page.status == 200 && page.headers.first(name: "content-type") == "image/png")
        }
    }

    private static func token(_ credentials: GatewayClient.Credentials) -> String? {
        if case .bearer(let token) = credentials { return token }
        return nil
    }
}
