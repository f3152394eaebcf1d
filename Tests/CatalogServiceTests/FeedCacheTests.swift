import Foundation
import NIOCore
import Synchronization
import Testing

@testable import CatalogService

@Suite struct FeedCacheTests {
    actor Counter {
        var value = 0
        func increment() { value += 1 }
    }

    @Test func concurrentMissesComputeAPageOnceAndEntriesExpire() async throws {
        let cache = FeedCache(lifetime: .milliseconds(300))
        let computations = Counter()
        let served = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    if let hit = cache.get("k") { return String(buffer: hit.body) }
                    if await cache.leadOrWait("k") {
                        defer { cache.finished("k") }
                        await computations.increment()
                        try await Task.sleep(for: .milliseconds(50))
                        cache.put("k", FeedCache.Representation(body: ByteBuffer(string: "page"), headers: [:]))
                        return "page"
                    }
                    return String(buffer: try #require(cache.get("k")).body)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(await computations.value == 1)
        #expect(served.allSatisfy { $0 == "page" })
        try await Task.sleep(for: .milliseconds(400))
        #expect(cache.get("k") == nil, "expired")
        #expect(await cache.leadOrWait("k"), "after expiry the next request computes again")
        cache.finished("k")
    }

    @Test func anExpiredPageStaysAvailableAsStaleForOneMoreLifetimeWhileOneRequestRecomputesIt() async throws {
        let clock = Mutex(ContinuousClock.now)
        let cache = FeedCache(lifetime: .seconds(5), now: { clock.withLock { $0 } })
        cache.put("k", FeedCache.Representation(body: ByteBuffer(string: "v1"), headers: [:]))
        #expect(cache.get("k") != nil && cache.stale("k") == nil, "fresh, so not stale")
        clock.withLock { $0 += .seconds(6) }
        #expect(cache.get("k") == nil)
        #expect(cache.stale("k").map { String(buffer: $0.body) } == "v1")
        #expect(cache.tryLead("k"), "the first request recomputes")
        #expect(!cache.tryLead("k"), "the others are answered with the stale copy")
        cache.put("k", FeedCache.Representation(body: ByteBuffer(string: "v2"), headers: [:]))
        cache.finished("k")
        #expect(cache.get("k").map { String(buffer: $0.body) } == "v2")
        clock.withLock { $0 += .seconds(11) }
        #expect(cache.get("k") == nil && cache.stale("k") == nil, "older than two lifetimes: gone")
        cache.put("k", FeedCache.Representation(body: ByteBuffer(string: "v3"), headers: [:]))
        cache.clear()
        #expect(cache.get("k") == nil && cache.stale("k") == nil, "an admin change leaves nothing to serve stale")
    }
}
