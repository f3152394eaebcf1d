import Foundation
import NIOCore
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
}
