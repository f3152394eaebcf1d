import Foundation
import TestSupport
import Testing

/// A child's card through the gateway, on the three executables: books marked for children, for adults and not marked
/// at all; the child's card (Bearer and HTTP Basic alike) never sees an adult's or an unmarked book in any feed,
/// lane, group, search or book page in either format, and cannot borrow one; an adult and an anonymous visitor see
/// everything, through the same edge cache.
@Suite struct ChildrensCardTests {
    @Test func aChildsCardNeverSeesAnAdultOnlyBookAnywhere() async throws {
        try await Stack.run { stack in
            let api = stack.gateway
            let files = await TestTools.generatedBooks(count: 3, seed: 703)
            let (forChildren, forAdults, unmarked) = (
                try await stack.ingest(files[0], copies: 2), try await stack.ingest(files[1], copies: 2), try await stack.ingest(files[2], copies: 2)
            )
            for (book, audience) in [(forChildren, "children"), (forAdults, "adult")] {
                let edit = try await api.call(.PATCH, "/admin/books/\(book)", as: .bearer(Stack.adminToken), json: #"{"audience": "\#(audience)"}"#)
                #expect(edit.status == 200 && edit.json["audience"] as? String == audience, "\(edit.text)")
            }
            let refused = try await api.call(.PATCH, "/admin/books/\(unmarked)", as: .bearer(Stack.adminToken), json: #"{"audience": "toddlers"}"#)
            #expect(refused.status == 400, "an unknown audience")
            func title(_ id: String) async throws -> String {
                let entry = try await api.call(.GET, "/opds/books/\(id)", headers: [("Accept", "application/opds+json")])
                return try #require((entry.json["metadata"] as? [String: Any])?["title"] as? String)
            }
            let titles = [forChildren: try await title(forChildren), forAdults: try await title(forAdults), unmarked: try await title(unmarked)]

            // A child's card: signed up, then made a child's by staff; its next sign-in carries the type.
            let (barcode, first) = try await stack.signUp(pin: "2468")
            let id = try #require(try await api.call(.GET, "/me", as: .bearer(first)).json["id"] as? String)
            let typed = try await api.call(.PUT, "/admin/patrons/\(id)/type", as: .bearer(Stack.adminToken), json: #"{"type": "child"}"#)
            #expect(typed.status == 200, "\(typed.text)")
            let token = try #require(try await api.call(.POST, "/auth/token", as: .basic(barcode, "2468")).json["access_token"] as? String)
            try await stack.waitForLicence(forAdults, token: token)
            let (adultBarcode, adult) = try await stack.signUp(pin: "1357")

            // Every listing the child may open, in both formats: searches by each title too.
            var paths = [
                "/opds", "/opds/groups", "/opds/lanes/new", "/opds/lanes/available", "/opds/lanes/new?size=1", "/opds/books/\(forChildren)/related",
            ]
            for title in titles.values {
                paths.append("/opds/search?q=" + (title.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            }
            for credentials in [GatewayClient.Credentials.bearer(token), .basic(barcode, "2468")] {
                var sawChildrensBook = false
                for path in paths {
                    for accept in ["application/atom+xml", "application/opds+json"] {
                        // Twice: the second answer may come from the edge cache.
                        for _ in 0..<2 {
                            let page = try await api.call(.GET, path, as: credentials, headers: [("Accept", accept)])
                            #expect(page.status == 200, "\(path): \(page.status)")
                            #expect(
                                !page.text.contains(forAdults) && !page.text.contains(unmarked),
                                "\(path) (\(accept)) shows a book not for children"
                            )
                            sawChildrensBook = sawChildrensBook || page.text.contains(forChildren)
                        }
                    }
                }
                #expect(sawChildrensBook, "the children's book shows to the child")
                #expect(try await api.call(.GET, "/opds/books/\(forAdults)", as: credentials).status == 404)
                #expect(try await api.call(.GET, "/opds/books/\(unmarked)", as: credentials).status == 404)
                #expect(try await api.call(.GET, "/opds/books/\(forChildren)", as: credentials).status == 200)
                // Asking for every book changes nothing: the gateway sets the card's own audience.
                let sneaky = try await api.call(.GET, "/opds/lanes/new?audience=", as: credentials)
                #expect(sneaky.status == 200 && !sneaky.text.contains(forAdults))
            }
            let borrow = try await api.call(.POST, "/me/books/\(forAdults)/borrow", as: .bearer(token))
            #expect(borrow.status == 403 && (borrow.json["type"] as? String)?.hasSuffix("not-for-this-card") == true, "\(borrow.text)")
            #expect(try await api.call(.POST, "/me/books/\(unmarked)/hold", as: .bearer(token)).status == 403)
            #expect(try await api.call(.POST, "/me/books/\(forChildren)/borrow", as: .bearer(token)).status == 201)

            // An adult and an anonymous visitor see every book, the same pages just after the child's.
            for credentials in [GatewayClient.Credentials.bearer(adult), .basic(adultBarcode, "1357"), nil] {
                let page = try await api.call(.GET, "/opds/lanes/new", as: credentials)
                #expect(page.text.contains(forAdults) && page.text.contains(unmarked) && page.text.contains(forChildren))
            }
            #expect(try await api.call(.POST, "/me/books/\(forAdults)/borrow", as: .bearer(adult)).status == 201)
        }
    }
}
