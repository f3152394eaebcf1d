import Foundation
import TestSupport
import Testing

/// Anonymous pages come from the caches (gateway and catalog) and an operator's change shows at once.
@Suite struct CachingTests {
    @Test func anAdminChangeThroughTheGatewayShowsAtOnceInCachedAnonymousFeeds() async throws {
        // Caches that outlive a slow validation on a loaded machine (the edge copy is still capped by the max-age).
        try await Stack.run(["EDGE_CACHE_TTL": "60s", "FEED_CACHE_TTL": "60s"]) { stack in
            let api = stack.gateway
            let book = try await stack.ingest(Stack.corpus[0])
            let picks = "/opds/lanes/staff-picks"
            #expect(publicationIDs(try await stack.fetchValid(picks, kind: "feed", json: true).json).isEmpty)
            let again = try await api.call(.GET, picks, headers: [("Accept", "application/opds+json")])
            #expect(again.headers.first(name: "age") != nil, "the second anonymous request is answered from a cache")
            #expect(again.headers.first(name: "cache-control") == "public, max-age=30")

            let edit = try await api.call(.PATCH, "/admin/books/\(book)", as: .bearer(Stack.adminToken), json: #"{"staffPick": true}"#)
            #expect(edit.status == 200, "\(edit.text)")
            #expect(publicationIDs(try await stack.fetchValid(picks, kind: "feed", json: true).json) == [book])
            try await stack.fetchValid(picks, kind: "atom")
        }
    }
}
