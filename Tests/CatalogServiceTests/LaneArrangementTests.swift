import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceSupport
import Shared
import TestSupport
import Testing

@testable import CatalogService

/// Staff arrange the root and grouped feeds (`/admin/lanes`): a featured list placed among the lanes, a lane moved
/// first, another hidden; the feeds follow at once; unknown or repeated lanes are refused.
extension CatalogServiceTests {
    @Test func staffOrderAndHideTheLanesOfTheRootAndGroupedFeeds() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let book = try #require(try await ingest(client, try MinimalEPUB.write(title: "Winter Tale", author: "A. Writer")).1["id"] as? String)
            let list = try await call(client, .post, "/admin/lists", Self.staff, #"{"title": "Winter reads", "featured": true}"#)
            let listID = try #require(list.json["id"] as? String)
            #expect(try await call(client, .put, "/admin/lists/\(listID)/books", Self.staff, #"{"books": ["\#(book)"]}"#).status == .ok)

            let before = try await call(client, .get, "/admin/lanes", Self.staff)
            let slugs = (before.json["lanes"] as? [[String: Any]] ?? []).compactMap { $0["slug"] as? String }
            #expect(slugs.first == "list-\(listID)" && slugs.contains("popular") && slugs.contains("new"), "\(slugs)")
            #expect(try await call(client, .get, "/admin/lanes", [:]).status == .unauthorized)

            // Popular first, the list second, New arrivals hidden; the rest follow in their default order.
            let body =
                #"{"lanes": [{"slug": "popular", "hidden": false}, {"slug": "list-\#(listID)", "hidden": false}, {"slug": "new", "hidden": true}]}"#
            let arranged = try await call(client, .put, "/admin/lanes", Self.staff, body)
            #expect(arranged.status == .ok)
            let lanes = arranged.json["lanes"] as? [[String: Any]] ?? []
            #expect(lanes.prefix(3).compactMap { $0["slug"] as? String } == ["popular", "list-\(listID)", "new"])
            #expect(lanes[2]["hidden"] as? Bool == true && lanes[1]["kind"] as? String == "list")

            var opds: HTTPFields = [.accept: "application/opds+json"]
            opds[.accept] = "application/opds+json"
            let root = try await client.execute(uri: "/opds", method: .get, headers: opds) {
                (try? JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any]) ?? [:]
            }
            let titles = (root["navigation"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
            let popular = try #require(titles.lastIndex(of: "Popular"), "the recommendations are called Popular too when signed out")
            #expect(titles[popular + 1] == "Winter reads", "\(titles)")
            #expect(!titles.contains("New arrivals"), "a hidden lane is not shown: \(titles)")
            let groups = try await client.execute(uri: "/opds/groups", method: .get, headers: opds) {
                (try? JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any]) ?? [:]
            }
            let groupTitles = (groups["groups"] as? [[String: Any]] ?? []).compactMap { ($0["metadata"] as? [String: Any])?["title"] as? String }
            #expect(groupTitles.first == "Winter reads" && !groupTitles.contains("New arrivals"), "\(groupTitles)")

            #expect(
                try await call(client, .put, "/admin/lanes", Self.staff, #"{"lanes": [{"slug": "nope", "hidden": false}]}"#).status == .badRequest
            )
            let twice = #"{"lanes": [{"slug": "popular", "hidden": false}, {"slug": "popular", "hidden": true}]}"#
            #expect(try await call(client, .put, "/admin/lanes", Self.staff, twice).status == .badRequest)
        }
    }

    @Test func anArrangementPlacesNamedLanesFirstAndTheRestInTheirDefaultOrder() {
        let arrangement = LaneArrangement(placements: [.init(slug: "c", hidden: false), .init(slug: "a", hidden: true)])
        let lanes = ["a", "b", "c", "d"].map { (slug: $0, item: $0) }
        #expect(arrangement.arrange(lanes).map(\.slug) == ["c", "b", "d"])
        #expect(arrangement.arrange(lanes, keepHidden: true).map(\.slug) == ["c", "a", "b", "d"])
        #expect(LaneArrangement(placements: []).arrange(lanes).map(\.slug) == ["a", "b", "c", "d"])
    }
}
