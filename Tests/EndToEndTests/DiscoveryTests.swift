import Foundation
import Shared
import TestSupport
import Testing

/// Related books and recommendations through the real services: "patrons who borrowed this also borrowed" needs three
/// patrons who borrowed both books, and "Recommended for you" follows what a patron liked without books they had or
/// ignore. Every feed validates.
@Suite struct DiscoveryTests {
    func groups(_ feed: [String: Any]) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for group in feed["groups"] as? [[String: Any]] ?? [] {
            let title = (group["metadata"] as? [String: Any])?["title"] as? String ?? ""
            result[title] = (group["publications"] as? [[String: Any]] ?? []).compactMap { ($0["metadata"] as? [String: Any])?["title"] as? String }
        }
        return result
    }

    func titles(_ feed: [String: Any]) -> [String] {
        (feed["publications"] as? [[String: Any]] ?? []).compactMap { ($0["metadata"] as? [String: Any])?["title"] as? String }
    }

    static func series(_ name: String, _ position: Int) -> String {
        """
        <meta property="belongs-to-collection" id="s">\(name)</meta><meta refines="#s" property="collection-type">series</meta>
        <meta refines="#s" property="group-position">\(position)</meta>
        """
    }

    @Test func coBorrowedBooksNeedThreePatronsAndRecommendationsFollowWhatAPatronLiked() async throws {
        // Accounts of today counted, and three patrons enough (by default five, of accounts older than 30 days:
        // TasteTests checks those defaults and the attack they stop).
        try await Stack.run(["FEED_CACHE_TTL": "0", "EDGE_CACHE_TTL": "0", "CO_BORROWING_ACCOUNT_AGE": "0s", "CO_BORROWING_MIN_PATRONS": "3"]) {
            stack in
            let api = stack.gateway
            var ids: [String: String] = [:]
            for (title, author, metadata) in [
                ("Anchor", "Ann Able", ""), ("Shared Thrice", "Bo Baker", ""), ("Shared Twice", "Cy Cole", ""),
                ("Saga One", "Di Dale", Self.series("The Saga", 1)), ("Saga Two", "Di Dale", Self.series("The Saga", 2)),
                ("Saga Three", "Di Dale", Self.series("The Saga", 3)), ("Other By Dale", "Di Dale", ""),
            ] {
                ids[title] = try await stack.ingest(try MinimalEPUB.write(title: title, author: author, metadata: metadata), copies: 5)
            }
            var tokens: [String] = []
            for _ in 0..<3 { tokens.append(try await stack.signUp().token) }
            for id in ids.values { try await stack.waitForLicence(id, token: tokens[0]) }
            let patrons = tokens.map { GatewayClient.Credentials.bearer($0) }
            func borrowAndReturn(_ title: String, _ who: GatewayClient.Credentials) async throws {
                #expect(try await api.call(.POST, "/me/books/\(ids[title]!)/borrow", as: who).status == 201)
                #expect(try await api.call(.POST, "/me/books/\(ids[title]!)/return", as: who).status == 200)
            }
            // Three patrons borrowed Anchor and Shared Thrice; only two of them Shared Twice.
            for (n, who) in patrons.enumerated() {
                try await borrowAndReturn("Anchor", who)
                try await borrowAndReturn("Shared Thrice", who)
                if n < 2 { try await borrowAndReturn("Shared Twice", who) }
            }
            let related = try await stack.fetchValid("/opds/books/\(ids["Anchor"]!)/related", kind: "feed", json: true).json
            #expect(groups(related)["Patrons who borrowed this also borrowed"] == ["Shared Thrice"], "three co-borrowers: shown; two: not")
            _ = try await stack.fetchValid("/opds/books/\(ids["Anchor"]!)/related", kind: "atom")

            // A new patron liked Saga One (rated it), had Saga Two, ignores Saga Three: the rest by Di Dale is recommended.
            let reader = GatewayClient.Credentials.bearer(try await stack.signUp().token)
            #expect(try await api.call(.PUT, "/me/books/\(ids["Saga One"]!)/rating", as: reader, json: #"{"stars": 5}"#).status == 200)
            try await borrowAndReturn("Saga Two", reader)
            #expect(try await api.call(.PUT, "/me/books/\(ids["Saga Three"]!)/ignored", as: reader).status == 204)
            let mine = try await stack.fetchValid("/opds/recommended", kind: "feed", json: true, as: reader).json
            #expect((mine["metadata"] as? [String: Any])?["title"] as? String == "Recommended for you")
            // The series is all liked, had or ignored; the author's other book remains (no genres in these books).
            #expect(titles(mine) == ["Other By Dale"], "never a book liked, had or ignored")
            // A patron who liked Anchor is recommended what three of its borrowers also borrowed, first.
            let fan = GatewayClient.Credentials.bearer(try await stack.signUp().token)
            #expect(try await api.call(.PUT, "/me/favorites/\(ids["Anchor"]!)", as: fan).status < 300)
            let forFan = titles(try await stack.fetchValid("/opds/recommended", kind: "feed", json: true, as: fan).json)
            #expect(forFan.first == "Shared Thrice" && !forFan.contains("Anchor") && !forFan.contains("Shared Twice"), "\(forFan)")
            // First on the signed-in grouped feed and root; anonymous visitors get popular books there.
            let grouped = try await stack.fetchValid("/opds/groups", kind: "feed", json: true, as: reader).json
            #expect(((grouped["groups"] as? [[String: Any]])?.first?["metadata"] as? [String: Any])?["title"] as? String == "Recommended for you")
            let root = try await stack.fetchValid("/opds", kind: "feed", json: true, as: reader).json
            #expect(((root["navigation"] as? [[String: Any]])?.first?["title"] as? String) == "Recommended for you")
            let anonymous = try await stack.fetchValid("/opds/recommended", kind: "feed", json: true).json
            #expect((anonymous["metadata"] as? [String: Any])?["title"] as? String == "Popular")
            // Checkouts reach catalog through patron's outbox.
            try await eventually("most borrowed first") {
                titles(try await stack.fetchValid("/opds/recommended", kind: "feed", json: true).json).prefix(2).sorted() == [
                    "Anchor", "Shared Thrice",
                ]
            }
            _ = try await stack.fetchValid("/opds/recommended", kind: "atom", as: reader)

            // A patron's list through the gateway (routed to catalog): private, then public and readable anonymously.
            let created = try await api.call(.POST, "/me/lists", as: reader, json: #"{"title": "Dale marathon"}"#)
            #expect(created.status == 201)
            let list = try #require(created.json["id"] as? String)
            let books = #"{"books": ["\#(ids["Saga Two"]!)", "\#(ids["Other By Dale"]!)"]}"#
            #expect(try await api.call(.PUT, "/me/lists/\(list)/books", as: reader, json: books).status == 200)
            #expect(try await api.call(.GET, "/opds/lists/\(list)").status == 404)
            #expect(try await api.call(.GET, "/opds/lists/\(list)", as: patrons[0]).status == 404)
            #expect(try await api.call(.PATCH, "/me/lists/\(list)", as: reader, json: #"{"public": true}"#).status == 200)
            #expect(titles(try await stack.fetchValid("/opds/lists/\(list)", kind: "feed", json: true).json) == ["Saga Two", "Other By Dale"])
            _ = try await stack.fetchValid("/opds/lists/\(list)", kind: "atom", as: reader)
            // The patron's export carries the list and its books.
            let exported = try await api.call(.GET, "/me/export", as: reader).json["lists"] as? [[String: Any]]
            #expect(exported?.first?["title"] as? String == "Dale marathon" && (exported?.first?["books"] as? [String])?.count == 2)
            // The account deleted: its lists go with it (catalog hears through patron's outbox).
            #expect(try await api.call(.DELETE, "/me", as: reader).status == 204)
            try await eventually("the deleted patron's list is gone") { try await api.call(.GET, "/opds/lists/\(list)").status == 404 }
        }
    }
}
