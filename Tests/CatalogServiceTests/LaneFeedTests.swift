import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceSupport
import Shared
import TestSupport
import Testing
import ZIPFoundation

@testable import CatalogService

/// Lane pages: keyset paging under concurrent inserts, facets, ETags, 304 and gzip.
extension CatalogServiceTests {
    @Test func lanePagesAreStableUnderConcurrentInsertsAndFacetsValidate() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let small = await CorpusBook.valid(12)
            for book in small.prefix(8) { _ = try await ingest(client, book) }
            var seen: [String] = []
            var uri = "/opds/lanes/new?sort=title&order=asc&size=3"
            var inserted = false
            while true {
                let body = try await client.execute(uri: uri, method: .get, headers: [.accept: "application/opds+json"]) { Data(buffer: $0.body) }
                let document = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
                let publications = document["publications"] as? [[String: Any]] ?? []
                seen += publications.compactMap { ($0["metadata"] as? [String: Any])?["identifier"] as? String }
                if !inserted {
                    for book in small.dropFirst(8) { _ = try await ingest(client, book) }
                    inserted = true
                }
                guard let next = (document["links"] as? [[String: Any]])?.first(where: { $0["rel"] as? String == "next" })?["href"] as? String else {
                    break
                }
                uri = String(next.dropFirst("http://127.0.0.1:8080".count))
            }
            #expect(Set(seen).count == seen.count, "no duplicates across pages")
            #expect(seen.count >= 8)
            let bad = try await client.execute(uri: "/opds/lanes/new?after=garbage", method: .get) { $0.status }
            #expect(bad == .badRequest)
            #expect(try await client.execute(uri: "/opds/lanes/nope", method: .get) { $0.status } == .notFound)
        }
    }

    @Test func eachGroupOfTheGroupedFeedIsTheFirstBooksOfItsLane() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            for book in await CorpusBook.valid(14) { _ = try await ingest(client, book) }
            // Every lane with books, in orders that differ from the rows' order.
            try await TestDatabase.execute(
                """
                WITH numbered AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM books)
                UPDATE books b SET featured = n % 2 = 0, staff_pick = n % 3 = 0, popularity = (n * 7) % 11,
                    genres = CASE WHEN n % 2 = 0 THEN ARRAY['fiction'] ELSE ARRAY['history', 'poetry'] END
                FROM numbered WHERE b.id = numbered.id
                """,
                on: url
            )
            func document(_ uri: String) async throws -> [String: Any] {
                let body = try await client.execute(uri: uri, method: .get, headers: [.accept: "application/opds+json"]) { Data(buffer: $0.body) }
                return try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            }
            func identifiers(_ publications: Any?) -> [String] {
                (publications as? [[String: Any]] ?? []).compactMap { ($0["metadata"] as? [String: Any])?["identifier"] as? String }
            }
            let groups = try #require(try await document("/opds/groups")["groups"] as? [[String: Any]])
            let laneGroups = groups.filter { (($0["links"] as? [[String: Any]])?.first?["href"] as? String)?.contains("/opds/lanes/") == true }
            #expect(laneGroups.count == 8, "five fixed lanes and three genres: \(groups.map { ($0["metadata"] as? [String: Any])?["title"] ?? "" })")
            for group in laneGroups {
                let href = try #require((group["links"] as? [[String: Any]])?.first?["href"] as? String)
                let path = String(href[href.range(of: "/opds/lanes/")!.lowerBound...])
                let lane = try await document(path + "?size=\(FeedController.groupSize)")
                #expect(identifiers(group["publications"]) == identifiers(lane["publications"]), "\(path)")
            }
        }
    }

    @Test func feedsCarryAStrongETagAnswer304AndGzipWhenAsked() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            for book in await CorpusBook.valid(4) { _ = try await ingest(client, book) }
            let (plain, etag, control) = try await client.execute(uri: "/opds/lanes/new", method: .get) {
                (Data(buffer: $0.body), $0.headers[.eTag], $0.headers[.cacheControl])
            }
            let tag = try #require(etag)
            #expect(tag.hasPrefix("\"") && !tag.hasPrefix("W/"), "a strong ETag")
            #expect(control?.hasPrefix("public") == true, "anonymous feeds are shared-cacheable")
            #expect(try await client.execute(uri: "/opds/lanes/new", method: .get, headers: [.ifNoneMatch: tag]) { $0.status } == .notModified)
            let (zipped, encoding, zippedTag) = try await client.execute(
                uri: "/opds/lanes/new",
                method: .get,
                headers: [.acceptEncoding: "br, gzip;q=0.8"]
            ) {
                (Data(buffer: $0.body), $0.headers[.contentEncoding], $0.headers[.eTag])
            }
            #expect(encoding == "gzip" && zippedTag != tag && zipped.count < plain.count)
            #expect(zipped.prefix(2) == Data([0x1f, 0x8b]), "a gzip member")
            let refused = try await client.execute(uri: "/opds/lanes/new", method: .get, headers: [.acceptEncoding: "gzip;q=0"]) {
                $0.headers[.contentEncoding]
            }
            #expect(refused == nil)
            let unzipped = try await gunzip(zipped)
            #expect(unzipped == plain)
        }
    }
}
