import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import Testing

@testable import ServiceSupport

@Suite struct ResponseCacheTests {
    actor Counter {
        var value = 0
        @discardableResult func increment() -> Int {
            value += 1
            return value
        }
        func decrement() { value -= 1 }
        func raise(to other: Int) { value = max(value, other) }
    }

    @Test func concurrentMissesComputeAPageOnceAndEntriesExpire() async throws {
        // The cache's clock stands still until the test moves it: a slow machine cannot expire the page under the waiters.
        let clock = Mutex(ContinuousClock.now)
        let cache = ResponseCache(name: "test", lifetime: .seconds(5), capacityBytes: 1 << 20, now: { clock.withLock { $0 } })
        let computations = Counter()
        let served = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    if let hit = cache.get("k") { return String(buffer: hit.body) }
                    if await cache.leadOrWait("k") {
                        defer { cache.finished("k") }
                        await computations.increment()
                        try await Task.sleep(for: .milliseconds(50))
                        cache.put("k", StoredResponse(body: ByteBuffer(string: "page"), headers: [:]))
                        return "page"
                    }
                    return String(buffer: try #require(cache.get("k")).body)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(await computations.value == 1)
        #expect(served.allSatisfy { $0 == "page" })
        clock.withLock { $0 += .seconds(6) }
        #expect(cache.get("k") == nil, "expired")
        #expect(await cache.leadOrWait("k"), "after expiry the next request computes again")
        cache.finished("k")
    }

    @Test func anExpiredPageStaysAvailableAsStaleForOneMoreLifetimeWhileOneRequestRecomputesIt() async throws {
        let clock = Mutex(ContinuousClock.now)
        let cache = ResponseCache(name: "test", lifetime: .seconds(5), capacityBytes: 1 << 20, now: { clock.withLock { $0 } })
        cache.put("k", StoredResponse(body: ByteBuffer(string: "v1"), headers: [:]))
        #expect(cache.get("k") != nil && cache.stale("k") == nil, "fresh, so not stale")
        clock.withLock { $0 += .seconds(6) }
        #expect(cache.get("k") == nil)
        #expect(cache.stale("k").map { String(buffer: $0.body) } == "v1")
        #expect(cache.tryLead("k"), "the first request recomputes")
        #expect(!cache.tryLead("k"), "the others are answered with the stale copy")
        cache.put("k", StoredResponse(body: ByteBuffer(string: "v2"), headers: [:]))
        cache.finished("k")
        #expect(cache.get("k").map { String(buffer: $0.body) } == "v2")
        clock.withLock { $0 += .seconds(11) }
        #expect(cache.get("k") == nil && cache.stale("k") == nil, "older than two lifetimes: gone")
        cache.put("k", StoredResponse(body: ByteBuffer(string: "v3"), headers: [:]))
        cache.clear()
        #expect(cache.get("k") == nil && cache.stale("k") == nil, "an admin change leaves nothing to serve stale")
    }

    /// What a service keeps with a response (catalog: a page's rows) counts against the capacity with its bytes: a
    /// small gzipped page with large rows cannot hold more memory than the cache is given.
    /// With a way to compute it again in the background, a stale page is given at once, to the request that found it
    /// first too, and computed once however many ask meanwhile; the fresh page then replaces it.
    @Test func aStalePageIsGivenAtOnceWhileOneBackgroundTaskComputesItAgain() async throws {
        let clock = Mutex(ContinuousClock.now)
        let cache = ResponseCache(name: "test", lifetime: .seconds(5), capacityBytes: 1 << 20, now: { clock.withLock { $0 } })
        cache.put("k", StoredResponse(body: ByteBuffer(string: "v1"), headers: [:]))
        clock.withLock { $0 += .seconds(6) }
        let refreshes = Counter()
        let (release, releasing) = AsyncStream.makeStream(of: Void.self)
        let refresh: @Sendable () async throws -> Void = {
            await refreshes.increment()
            for await _ in release { break }
            cache.put("k", StoredResponse(body: ByteBuffer(string: "v2"), headers: [:]))
        }
        let request = Request(head: .init(method: .get, scheme: "http", authority: "localhost", path: "/"), body: .init(buffer: ByteBuffer()))
        for _ in 0..<3 {
            let response = try await cache.respond(to: request, key: "k", refresh: refresh) {
                Issue.record("a request waited for the page to be computed again")
                return Response(status: .internalServerError)
            }
            #expect(response.status == .ok)
            #expect(cache.copy("k", refreshingStaleWith: refresh).map { String(buffer: $0.body) } == "v1")
        }
        releasing.yield()
        for _ in 0..<3_000 where cache.get("k") == nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(cache.get("k").map { String(buffer: $0.body) } == "v2")
        #expect(await refreshes.value == 1, "one computation for the six requests that found the page stale")
        #expect(cache.tryLead("k"), "the computation finished")
        cache.finished("k")
        // Without a way to do it in the background, the first request computes the page itself, as before.
        clock.withLock { $0 += .seconds(6) }
        let inline = try await cache.respond(to: request, key: "k") { Response(status: .accepted) }
        #expect(inline.status == .accepted)
    }

    /// Pages kept together go stale together: their refreshes run `maxRefreshes` at a time, the others in turn, and each
    /// stale page is answered at once meanwhile.
    @Test func staleRefreshesRunAFewAtATimeAndTheRestInTurn() async throws {
        let clock = Mutex(ContinuousClock.now)
        let cache = ResponseCache(name: "test", lifetime: .seconds(5), capacityBytes: 1 << 20, maxRefreshes: 2, now: { clock.withLock { $0 } })
        let keys = (0..<6).map { "k\($0)" }
        for key in keys { cache.put(key, StoredResponse(body: ByteBuffer(string: "old"), headers: [:])) }
        clock.withLock { $0 += .seconds(6) }
        let running = Counter()
        let most = Counter()
        let released = Mutex(false)
        for key in keys {
            let copy = cache.copy(key) {
                let now = await running.increment()
                await most.raise(to: now)
                while !released.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
                await running.decrement()
                cache.put(key, StoredResponse(body: ByteBuffer(string: "new"), headers: [:]))
            }
            #expect(copy.map { String(buffer: $0.body) } == "old")
        }
        for _ in 0..<3_000 where await running.value < 2 { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        #expect(await running.value == 2, "two refreshes under way, four waiting their turn")
        released.withLock { $0 = true }
        for _ in 0..<3_000 where keys.contains(where: { cache.get($0) == nil }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(keys.allSatisfy { cache.get($0).map { String(buffer: $0.body) } == "new" }, "every page was refreshed in turn")
        #expect(await most.value == 2)
    }

    @Test func whatIsKeptWithAResponseCountsAgainstTheCapacity() {
        struct Rows: StoredSource { let bytes: Int }
        var page = StoredResponse(body: ByteBuffer(repeating: 0x61, count: 100), headers: [:])
        let bare = ResponseCache.cost(key: "k", page)
        page.source = Rows(bytes: 10_000)
        #expect(ResponseCache.cost(key: "k", page) == bare + 10_000)
        let cache = ResponseCache(name: "test", lifetime: .seconds(5), capacityBytes: bare + 5_000)
        cache.put("k", page)
        #expect(cache.get("k") == nil, "larger than the whole cache with its rows: not kept")
    }

    @Test func answersCarryTheirAgeAndTheCapacityIsKept() throws {
        let clock = Mutex(ContinuousClock.now)
        func stored(_ size: Int, age: Int? = nil) -> StoredResponse {
            StoredResponse(body: ByteBuffer(repeating: 0x61, count: size), headers: age.map { [.age: "\($0)"] } ?? [:])
        }
        let one = ResponseCache.cost(key: "a", stored(100))
        // Room for two entries of 100 bytes with their keys, headers and overhead, not three.
        let cache = ResponseCache(name: "test", lifetime: .seconds(5), capacityBytes: one * 2 + 100, now: { clock.withLock { $0 } })

        cache.put("a", stored(100), lifetime: .seconds(1))
        cache.put("b", stored(100, age: 3), lifetime: .seconds(60))  // never fresh longer than the cache's 5 s
        clock.withLock { $0 += .seconds(1) }
        #expect(cache.get("a") == nil && cache.stale("a")?.headers[.age] == "1", "a shorter lifetime, then stale as long again")
        #expect(cache.get("b")?.headers[.age] == "4", "an upstream's Age keeps counting")
        cache.put("c", stored(100))  // over capacity: "a", closest to the end of its stale time, goes
        #expect(cache.stale("a") == nil)
        #expect(cache.get("b") != nil && cache.get("c") != nil)
        #expect(cache.bytes == ResponseCache.cost(key: "b", stored(100, age: 3)) + one)
        clock.withLock { $0 += .seconds(4) }
        #expect(cache.get("b") == nil && cache.stale("b") != nil)
        cache.put("d", stored(one * 3))  // larger than the whole cache: not kept
        #expect(cache.get("d") == nil)
        clock.withLock { $0 += .seconds(5) }
        cache.put("e", stored(100))  // "b" is past its stale time and makes room; "c" is stale and stays
        #expect(cache.bytes == one * 2)
        #expect(cache.stale("c") != nil && cache.get("e") != nil)
    }

    @Test func entriesPastTheirStaleWindowAreDroppedWithoutWaitingForTheCacheToFill() {
        let clock = Mutex(ContinuousClock.now)
        let cache = ResponseCache(name: "test", lifetime: .seconds(5), capacityBytes: 1 << 20, now: { clock.withLock { $0 } })
        let page = StoredResponse(body: ByteBuffer(string: "page"), headers: [:])
        for n in 0..<100 { cache.put("/search?q=\(n)", page) }
        clock.withLock { $0 += .seconds(8) }
        cache.put("/search?q=later", page)
        #expect(cache.count == 101, "stale, not yet gone: kept to answer while one request recomputes")
        clock.withLock { $0 += .seconds(5) }
        cache.put("/search?q=last", page)
        #expect(cache.count == 2, "the next put a lifetime after the last sweep drops what expired for good")
        #expect(cache.bytes == ResponseCache.cost(key: "/search?q=later", page) + ResponseCache.cost(key: "/search?q=last", page))
    }

    @Test func aStaleWindowOfItsOwnKeepsCopiesPastTwiceTheirLifetime() {
        let clock = Mutex(ContinuousClock.now)
        let cache = ResponseCache(name: "test", lifetime: .seconds(1), staleFor: .seconds(60), capacityBytes: 1 << 20, now: { clock.withLock { $0 } })
        cache.put("mine", StoredResponse(body: ByteBuffer(string: "page"), headers: [.eTag: "\"own\""]))
        clock.withLock { $0 += .seconds(30) }
        cache.put("other", StoredResponse(body: ByteBuffer(string: "page"), headers: [:]))  // sweeps what is past its window
        #expect(cache.get("mine") == nil, "no longer fresh")
        #expect(cache.stale("mine")?.headers[.eTag] == "\"own\"", "held for its stale window, not one lifetime")
        clock.withLock { $0 += .seconds(31) }
        #expect(cache.stale("mine") == nil, "gone once the window ends")
    }

    @Test func paddedKeysAndManyEntriesStayWithinTheBudget() {
        let cache = ResponseCache(name: "test", lifetime: .seconds(5), capacityBytes: 1 << 20, maxEntries: 100)
        let body = StoredResponse(body: ByteBuffer(string: "{}"), headers: [.contentType: "application/json"])
        cache.put("/books/1/toc?pad=" + String(repeating: "x", count: 60_000), body)
        #expect(cache.count == 0, "a key longer than maxKeyBytes is never stored")
        for n in 0..<1_000 { cache.put("/books/1/toc?pad=\(n)" + String(repeating: "y", count: 1_500), body) }
        #expect(cache.count <= 100)
        #expect(cache.bytes <= 100 * (ResponseCache.entryOverhead + 1_600 + 64))
        cache.put(String(repeating: "k", count: 10), StoredResponse(body: ByteBuffer(repeating: 1, count: (1 << 20) - 200), headers: [:]))
        #expect(cache.bytes <= 1 << 20, "the key and overhead count too")
    }
}
