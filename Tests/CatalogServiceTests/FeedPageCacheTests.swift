import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceSupport
import Shared
import Synchronization
import TestSupport
import Testing

@testable import CatalogService

/// Catalog's anonymous feed pages past their TTL (`FeedPageCache`): a visitor gets the stale copy at once while the
/// page is computed again in the background; a gateway's background fetch of its own stale copy
/// (`X-Internal-Stale-Refresh`) gets the page computed now, or it would keep a copy already a TTL old for its own TTL.
extension CatalogServiceTests {
    /// Catalog with a 5 s feed cache on the test's clock (`now`), holding one book.
    func withOneBook(
        now: @escaping @Sendable () -> ContinuousClock.Instant,
        _ test: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        var parts = try CatalogDependencies(
            config: TestConfig.base([
                "CATALOG_DATABASE_URL": try await TestDatabase.create(prefix: "catalog"), "BLOB_DIR": blobs.path, "FEED_CACHE_TTL": "5s",
            ])
        )
        parts.cacheClock = now
        try await buildCatalogApplication(parts: parts).testRouter { client in
            _ = try await ingest(client, await CorpusBook.valid(1)[0])
            try await test(client)
        }
    }

    @Test func aStalePageIsGivenToVisitorsAtOnceAndComputedNowForAGatewaysRefresh() async throws {
        let clock = Mutex(ContinuousClock.now)
        let now: @Sendable () -> ContinuousClock.Instant = { clock.withLock { $0 } }
        try await withOneBook(now: now) { client in
            /// The page's `Age`: 0 when computed for this request or since the clock last moved.
            func age(_ headers: HTTPFields = [:]) async throws -> Int {
                try await client.execute(uri: "/opds/lanes/new", method: .get, headers: headers) { response in
                    #expect(response.status == .ok)
                    return Int(response.headers[.age] ?? "0") ?? -1
                }
            }
            #expect(try await age() == 0)
            clock.withLock { $0 += .seconds(6) }
            #expect(try await age() == 6, "stale: given at once")
            var latest = 6
            // Up to a minute: the whole suite's load can slow the background computation.
            for _ in 0..<3_000 {
                latest = try await age()
                if latest == 0 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(latest == 0, "computed again in the background")
            clock.withLock { $0 += .seconds(6) }
            #expect(try await age([.staleRefresh: "yes"]) == 0, "a gateway's refresh of its stale copy: computed now")
            #expect(try await age() == 0)
        }
    }

    /// A page computed again with nothing changed keeps its bytes and ETag, so a gateway's refresh asked with the ETag
    /// it holds is answered 304, and the copy is fresh again.
    @Test func aPageComputedAgainUnchangedAnswersTheGatewaysRefreshWithA304() async throws {
        let clock = Mutex(ContinuousClock.now)
        let now: @Sendable () -> ContinuousClock.Instant = { clock.withLock { $0 } }
        try await withOneBook(now: now) { client in
            for accept in ["application/atom+xml", MediaType.opds2] {
                let etag = try await client.execute(uri: "/opds/lanes/new", method: .get, headers: [.accept: accept]) { response in
                    #expect(response.status == .ok)
                    return try #require(response.headers[.eTag])
                }
                clock.withLock { $0 += .seconds(6) }
                try await client.execute(
                    uri: "/opds/lanes/new",
                    method: .get,
                    headers: [.accept: accept, .staleRefresh: "yes", .ifNoneMatch: etag]
                ) { response in
                    #expect(response.status == .notModified, "computed now, and the same page")
                    #expect(response.headers[.eTag] == etag)
                    #expect(response.headers[.age] == nil)
                }
                try await client.execute(uri: "/opds/lanes/new", method: .get, headers: [.accept: accept]) { response in
                    #expect(response.headers[.eTag] == etag)
                    #expect(response.headers[.age] == "0", "fresh again")
                }
            }
        }
    }
}
