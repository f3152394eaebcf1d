import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceSupport
import Shared
import Synchronization
import TestSupport
import Testing

@testable import GatewayService

/// The gateway's edge cache (`EdgeCachePolicy` over a `ResponseCache`): what it keeps, for whom, for how long, and when
/// it lets go.
@Suite struct EdgeCacheMiddlewareTests {
    /// How many requests reached the upstream.
    final class Count: Sendable {
        private let value = Mutex(0)
        func next() -> Int {
            value.withLock {
                $0 += 1
                return $0
            }
        }
        var total: Int { value.withLock { $0 } }
    }

    /// A catalog stand-in that counts the requests reaching it. `/opds/public` is shareable (as catalog's anonymous
    /// feeds are), `/opds/private` is not; `POST /admin/change` answers `status`.
    func countingUpstream(_ count: Count) -> some ApplicationProtocol {
        let router = Router()
        router.get("/opds/public") { request, _ in
            let served = count.next()
            let body = "page \(served) for \(request.headers[.accept] ?? "any")"
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/plain", .eTag: "\"v\(served)\"", .cacheControl: "public, max-age=300",
                    .vary: "Accept, Accept-Encoding, Authorization", .requestID: request.headers[.requestID] ?? "",
                ],
                body: .init(byteBuffer: ByteBuffer(string: body))
            )
        }
        router.get("/opds/private") { _, _ in
            _ = count.next()
            return Response(status: .ok, headers: [.cacheControl: "private, no-cache"], body: .init(byteBuffer: ByteBuffer(string: "mine")))
        }
        router.get("/opds/lists/:id") { request, context in
            let served = count.next()
            return Response(
                status: .ok,
                headers: [.cacheControl: "public, max-age=300", .contentType: "text/plain"],
                body: .init(byteBuffer: ByteBuffer(string: "list \(context.parameters.get("id") ?? "") \(served)"))
            )
        }
        router.post("/me/lists/:id/books") { _, _ in Response(status: .created) }
        router.post("/admin/change") { request, _ in
            Response(status: request.uri.queryParameters.get("fail") == nil ? .ok : .badRequest)
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    func withGateway(_ test: @escaping @Sendable (any TestClientProtocol, Count) async throws -> Void) async throws {
        let count = Count()
        try await countingUpstream(count).test(.live) { upstream in
            let port = try #require(upstream.port)
            // A minute (half the pages' max-age of 300 s is longer): a loaded machine running this test slowly still
            // finds its entries fresh.
            let config = TestConfig.base([
                "CATALOG_URLS": "http://127.0.0.1:\(port)", "PATRON_URLS": "http://127.0.0.1:1", "GATEWAY_PORT": "0", "EDGE_CACHE_TTL": "60s",
            ])
            try await buildGatewayApplication(config: config).testRouter { client in try await test(client, count) }
        }
    }

    /// A gateway on the test's clock (`now`, `EDGE_CACHE_TTL` 60 s) in front of `router` as catalog.
    func withGateway(
        before router: Router<BasicRequestContext>,
        now: @escaping @Sendable () -> ContinuousClock.Instant,
        _ test: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let upstream = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await upstream.test(.live) { upstream in
            let port = try #require(upstream.port)
            let config = TestConfig.base([
                "CATALOG_URLS": "http://127.0.0.1:\(port)", "PATRON_URLS": "http://127.0.0.1:1", "GATEWAY_PORT": "0", "EDGE_CACHE_TTL": "60s",
            ])
            try await buildGatewayApplication(config: config, cacheClock: now).testRouter { client in try await test(client) }
        }
    }

    func body(_ client: some TestClientProtocol, _ uri: String, headers: HTTPFields = [:]) async throws -> String {
        try await client.execute(uri: uri, method: .get, headers: headers) { String(buffer: $0.body) }
    }

    @Test func anAnonymousPublicPageIsServedOnceByCatalogThenFromTheGateway() async throws {
        try await withGateway { client, count in
            // A revalidation that misses fetches the whole page for the cache and answers the client 304.
            try await client.execute(uri: "/opds/public", method: .get, headers: [.ifNoneMatch: "\"v1\"", .requestID: "first"]) { response in
                #expect(response.status == .notModified)
                #expect(response.headers[.requestID] == "first")
            }
            try await client.execute(uri: "/opds/public", method: .get, headers: [.requestID: "second"]) { response in
                #expect(String(buffer: response.body) == "page 1 for any")
                #expect(response.headers[.eTag] == "\"v1\"")
                #expect(response.headers[.cacheControl] == "public, max-age=300")
                // Seconds since the copy was made: 0 on a quiet machine, several when the suite runs under load (CI),
                // never more than the cache's 60 s TTL.
                #expect((Int(response.headers[.age] ?? "") ?? 99) < 60, "\(response.headers[.age] ?? "no Age")")
                #expect(response.headers[.requestID] == "second", "a stored response never carries another request's id")
            }
            try await client.execute(uri: "/opds/public", method: .get, headers: [.ifNoneMatch: "\"v1\""]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
            #expect(count.total == 1)

            // Another representation is another entry; the query is part of the key.
            #expect(try await body(client, "/opds/public", headers: [.accept: "application/opds+json"]) == "page 2 for application/opds+json")
            #expect(try await body(client, "/opds/public?page=2") == "page 3 for any")
            #expect(try await body(client, "/opds/public", headers: [.accept: "application/opds+json"]) == "page 2 for application/opds+json")
            #expect(count.total == 3)
        }
    }

    @Test func signedInNoCacheRangeAndPrivateRequestsAlwaysReachCatalog() async throws {
        try await withGateway { client, count in
            let keys = await AccessTokenKeys(secret: TestConfig.jwtSecret)
            let token = try await keys.sign(AccessTokenPayload(patronID: UUID(), sessionID: UUID(), issuedAt: Date(), lifetime: 900))
            _ = try await body(client, "/opds/public")
            #expect(try await body(client, "/opds/public", headers: [.authorization: "Bearer \(token)"]) == "page 2 for any")
            #expect(try await body(client, "/opds/public", headers: [.cacheControl: "no-cache"]) == "page 3 for any")
            #expect(try await body(client, "/opds/public", headers: [.range: "bytes=0-3"]) == "page 4 for any")
            #expect(try await body(client, "/opds/private") == "mine")
            #expect(try await body(client, "/opds/private") == "mine")
            #expect(count.total == 6)
            // None of these replaced the anonymous copy.
            #expect(try await body(client, "/opds/public") == "page 1 for any")
        }
    }

    @Test func aSuccessfulChangeSentToCatalogEmptiesTheCacheAndAFailedOneDoesNot() async throws {
        try await withGateway { client, count in
            _ = try await body(client, "/opds/public")
            try await client.execute(uri: "/admin/change?fail=1", method: .post) { #expect($0.status == .badRequest) }
            #expect(try await body(client, "/opds/public") == "page 1 for any")
            try await client.execute(uri: "/admin/change", method: .post) { #expect($0.status == .ok) }
            #expect(try await body(client, "/opds/public") == "page 2 for any")
            #expect(count.total == 2)
        }
    }

    /// A patron's change of a list forgets that list's public feed and nothing else: a patron writing over and over
    /// cannot empty the cache that everyone's pages come from.
    @Test func aPatronsChangeOfAListForgetsOnlyThatListsFeed() async throws {
        try await withGateway { client, count in
            let keys = await AccessTokenKeys(secret: TestConfig.jwtSecret)
            let token = try await keys.sign(AccessTokenPayload(patronID: UUID(), sessionID: UUID(), issuedAt: Date(), lifetime: 900))
            let (list, other) = (UUID().lowercased, UUID().lowercased)
            _ = try await body(client, "/opds/public")
            let before = try await body(client, "/opds/lists/\(list)")
            let otherBefore = try await body(client, "/opds/lists/\(other)")
            try await client.execute(uri: "/me/lists/\(list)/books", method: .post, headers: [.authorization: "Bearer \(token)"]) {
                #expect($0.status == .created)
            }
            #expect(try await body(client, "/opds/public") == "page 1 for any", "the lane page is still the cached one")
            #expect(try await body(client, "/opds/lists/\(other)") == otherBefore)
            #expect(try await body(client, "/opds/lists/\(list)") != before, "the changed list's feed is asked again")
            #expect(count.total == 4)
        }
    }

    @Test func onlyWhatCatalogDeclaresShareableIsKeptAndNeverPastItsMaxAge() {
        func headers(_ cacheControl: String, length: Int = 100, age: Int? = nil) -> HTTPFields {
            var fields: HTTPFields = [.cacheControl: cacheControl, .contentLength: "\(length)", .vary: "Accept, Accept-Encoding"]
            if let age { fields[.age] = "\(age)" }
            return fields
        }
        // Fresh for half of what is left of the max-age: stale as long again still ends within it.
        #expect(EdgeCachePolicy.lifetime(of: headers("public, max-age=30")) == .seconds(15))
        #expect(EdgeCachePolicy.lifetime(of: headers("public, max-age=30", age: 10)) == .seconds(10))
        #expect(EdgeCachePolicy.lifetime(of: headers("public, max-age=30", age: 29)) == nil)
        #expect(EdgeCachePolicy.lifetime(of: headers("max-age=30")) == nil, "not declared shareable")
        #expect(EdgeCachePolicy.lifetime(of: headers("public, no-store, max-age=30")) == nil)
        #expect(EdgeCachePolicy.lifetime(of: headers("public")) == nil, "no lifetime given")
        #expect(EdgeCachePolicy.lifetime(of: headers("public, max-age=30", length: EdgeCachePolicy.maxEntryBytes + 1)) == nil)
        #expect(EdgeCachePolicy.lifetime(of: [.cacheControl: "public, max-age=30"]) == nil, "length unknown")
        #expect(EdgeCachePolicy.lifetime(of: [.cacheControl: "public, max-age=30", .contentLength: "1", .vary: "Cookie"]) == nil)
        #expect(EdgeCachePolicy.lifetime(of: [.cacheControl: "public, max-age=30", .contentLength: "1", .setCookie: "a=b"]) == nil)
    }

    /// A stale page is answered at once, to the request that finds it first too, while the gateway fetches it again in
    /// the background (here from a catalog slow to answer); the new page then replaces it.
    @Test func aStalePageIsAnsweredAtOnceWhileTheGatewayFetchesItAgain() async throws {
        let clock = Mutex(ContinuousClock.now)
        let count = Count()
        let (release, releasing) = AsyncStream.makeStream(of: Void.self)
        let router = Router()
        router.get("/opds/public") { _, _ in
            let served = count.next()
            if served == 2 { for await _ in release { break } }
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain", .cacheControl: "public, max-age=300", .vary: "Accept"],
                body: .init(byteBuffer: ByteBuffer(string: "page \(served)"))
            )
        }
        let now: @Sendable () -> ContinuousClock.Instant = { clock.withLock { $0 } }
        try await withGateway(before: router, now: now) { client in
            #expect(try await body(client, "/opds/public") == "page 1")
            clock.withLock { $0 += .seconds(61) }
            // Were a request to wait for the new page, it would get it once this lets catalog answer, not before.
            let safetyNet = Task {
                try await Task.sleep(for: .seconds(20))
                releasing.yield()
            }
            #expect(try await body(client, "/opds/public") == "page 1", "stale, answered at once")
            #expect(try await body(client, "/opds/public") == "page 1")
            releasing.yield()
            var latest = ""
            for _ in 0..<1_200 {
                latest = try await body(client, "/opds/public")
                if latest != "page 1" { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            safetyNet.cancel()
            #expect(latest == "page 2")
            #expect(count.total == 2, "one fetch for every request that found the page stale")
        }
    }

    /// The background refresh of a stale page asks catalog with the held copy's ETag; catalog's 304 renews the copy
    /// (as old as the 304 says) without sending the page's bytes again.
    @Test func aStalePageCatalogSaysIsUnchangedIsRenewedWithoutItsBytes() async throws {
        let clock = Mutex(ContinuousClock.now)
        let asked = Mutex<[String?]>([])
        let router = Router()
        router.get("/opds/public") { request, _ in
            asked.withLock { $0.append(request.headers[.ifNoneMatch]) }
            let headers: HTTPFields = [.eTag: "\"v1\"", .cacheControl: "public, max-age=300", .vary: "Accept"]
            if request.headers[.ifNoneMatch] == "\"v1\"" {
                var notModified = headers
                notModified[.age] = "2"
                return Response(status: .notModified, headers: notModified)
            }
            var page = headers
            page[.contentType] = "text/plain"
            return Response(status: .ok, headers: page, body: .init(byteBuffer: ByteBuffer(string: "the page")))
        }
        let now: @Sendable () -> ContinuousClock.Instant = { clock.withLock { $0 } }
        try await withGateway(before: router, now: now) { client in
            func get() async throws -> (body: String, age: String?) {
                try await client.execute(uri: "/opds/public", method: .get) { (String(buffer: $0.body), $0.headers[.age]) }
            }
            #expect(try await get().body == "the page")
            clock.withLock { $0 += .seconds(61) }
            #expect(try await get() == ("the page", "61"), "stale, answered at once while fetched again")
            var latest: (body: String, age: String?) = ("", nil)
            for _ in 0..<1_200 {
                latest = try await get()
                if latest.age != "61" { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(latest == ("the page", "2"), "renewed by the 304: as old as catalog said")
            #expect(asked.withLock { $0 } == [nil, "\"v1\""], "fetched once, then asked with the copy's ETag")
        }
    }
}
