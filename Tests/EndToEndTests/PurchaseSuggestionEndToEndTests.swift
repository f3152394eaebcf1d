import Foundation
import TestSupport
import Testing

/// Purchase suggestions from outside, on the three executables: a patron's search finds nothing and they ask for the
/// title; it reaches staff's list (the console's API) through the gateway; staff order it; when the operator ingests
/// the book, the patron's notifications say it arrived and their suggestion names the book. The book's EPUB states
/// its readers' ages, and catalog keeps who it is for.
@Suite struct PurchaseSuggestionEndToEndTests {
    @Test func aSuggestionReachesStaffAndThePatronHearsWhenTheBookIsIngested() async throws {
        try await Stack.run { stack in
            let api = stack.gateway
            let (_, token) = try await stack.signUp(pin: "9753")
            let title = "The Wandering Lighthouse"
            let search = try await api.call(
                .GET,
                "/opds/search?q=wandering%20lighthouse",
                as: .bearer(token),
                headers: [("Accept", "application/opds+json")]
            )
            #expect(search.status == 200 && (search.json["publications"] as? [Any] ?? []).isEmpty)
            let asked = try await api.call(.POST, "/me/suggestions", as: .bearer(token), json: #"{"title": "\#(title)"}"#)
            #expect(asked.status == 201, "\(asked.text)")
            let id = try #require(asked.json["id"] as? String)

            let staffList = try await api.call(.GET, "/admin/suggestions", as: .bearer(Stack.adminToken))
            #expect(staffList.status == 200 && staffList.text.contains(title), "\(staffList.text)")
            let ordered = try await api.call(.PUT, "/admin/suggestions/\(id)", as: .bearer(Stack.adminToken), json: #"{"status": "ordered"}"#)
            #expect(ordered.status == 204)
            #expect(try await api.call(.GET, "/admin/suggestions", as: .bearer(token)).status == 401, "staff's list is staff's")

            let epub = try MinimalEPUB.write(
                title: title,
                author: "A. Keeper",
                metadata: #"<meta property="schema:typicalAgeRange">8-12</meta>"#
            )
            let book = try await stack.ingest(epub, copies: 1)
            let stored = try await api.call(.GET, "/admin/books/\(book)", as: .bearer(Stack.adminToken))
            #expect(stored.json["audience"] as? String == "children", "the EPUB's age range: \(stored.text.prefix(300))")
            try await eventually("the patron never heard the book arrived") {
                let notes = try await api.call(.GET, "/me/notifications", as: .bearer(token))
                return notes.text.contains("suggestion_arrived") && notes.text.contains(book)
            }
            let mine = try await api.call(.GET, "/me/suggestions", as: .bearer(token)).json["suggestions"] as? [[String: Any]] ?? []
            #expect(mine.first?["status"] as? String == "arrived" && mine.first?["bookId"] as? String == book)
        }
    }
}
