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

/// A signed-in feed page from the gateway's copy of the shared page: catalog is asked only whether the page is the
/// patron's, and the shared bytes never cross the hop again.
@Suite struct PersonalPagesMiddlewareTests {
    /// What reached the catalog stand-in.
    final class Seen: Sendable {
        private let value = Mutex<[String]>([])
        func add(_ what: String) { value.withLock { $0.append(what) } }
        var all: [String] { value.withLock { $0 } }
    }

    /// `/opds/lane` is a shared page with ETag `"s1"`; asked for a patron while the gateway holds `"s1"`, it answers
    /// 204 "yours"; `/opds/touched` answers a patron with a page of their own.
    func catalog(_ seen: Seen) -> some ApplicationProtocol {
        let router = Router()
        router.get("/opds/:page") { request, context in
            let page = context.parameters.get("page") ?? ""
            guard request.headers[.patronID] != nil else {
                seen.add("anonymous \(page)")
                if request.headers[.staleRefresh] == "yes" { seen.add("stale refresh \(page)") }
                return Response(
                    status: .ok,
                    headers: [
                        .contentType: "text/plain", .eTag: "\"s1\"", .cacheControl: "public, max-age=300",
                        .vary: "Accept, Accept-Encoding, Authorization",
                    ],
                    body: .init(byteBuffer: ByteBuffer(string: "the shared \(page)"))
                )
            }
            seen.add("patron \(page) holding \(request.headers[.sharedETag] ?? "nothing")")
            if request.headers[.spliceAccepted] == "yes" { seen.add("splice accepted \(page)") }
            if page.hasSuffix("spliced"), request.headers[.sharedETag] == "\"s1\"" {
                if request.headers[.ifNoneMatch] == "\"v7s-s1\"" {
                    return Response(status: .notModified, headers: [.eTag: "\"v7s-s1\"", .cacheControl: "private, no-cache"])
                }
                // "the shared spliced": "shared" (bytes 4-10) is the patron's entry; the bad one lies past the end.
                let header = page == "spliced" ? "4-10:8" : "4-100:8"
                return Response(
                    status: .ok,
                    headers: [.sharedPageUsable: "splice", .splice: header, .splicedETag: "\"v7s-s1\"", .cacheControl: "private, no-cache"],
                    body: .init(byteBuffer: ByteBuffer(string: "patron's"))
                )
            }
            if page == "lane", request.headers[.sharedETag] == "\"s1\"" {
                return Response(status: .noContent, headers: [.sharedPageUsable: "yes", .eTag: "\"v7-s1\"", .cacheControl: "private, no-cache"])
            }
            if request.headers[.ifNoneMatch] == "\"own\"" {
                seen.add("patron \(page) revalidated")
                return Response(status: .notModified, headers: [.eTag: "\"own\"", .cacheControl: "private, no-cache"])
            }
            return Response(
                status: .ok,
                headers: [.eTag: "\"own\"", .cacheControl: "private, no-cache"],
                body: .init(byteBuffer: ByteBuffer(string: "my own page"))
            )
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    /// A patron stand-in whose borrow answers as patron does after a change: with the shelf version catalog now holds.
    func patron(reportingShelfVersion version: String) -> some ApplicationProtocol {
        let router = Router()
        router.post("/me/books/:id/borrow") { _, _ in
            Response(
                status: .created,
                headers: [.shelfVersion: version, .contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: "{}"))
            )
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    /// A gateway in front of the catalog stand-in on `catalog` (patron unreachable), its caches kept a minute.
    static func config(catalog: Int) -> ServiceConfig {
        TestConfig.base([
            "CATALOG_URLS": "http://127.0.0.1:\(catalog)", "PATRON_URLS": "http://127.0.0.1:1",
            "GATEWAY_PORT": "0", "EDGE_CACHE_TTL": "60s", "SHARED_PAGE_VERDICT_TTL": "60s",
        ])
    }

    /// An `Authorization` header with a fresh access token of `patron` (a new one by default), signed as patron signs them.
    static func signedIn(as patron: UUID = UUID()) async throws -> HTTPFields {
        let keys = await AccessTokenKeys(secret: TestConfig.jwtSecret)
        let token = try await keys.sign(AccessTokenPayload(patronID: patron, sessionID: UUID(), issuedAt: Date(), lifetime: 900))
        return [.authorization: "Bearer \(token)"]
    }

    /// A shared page the gateway holds stale still answers a signed-in patron at once, and is fetched again in the
    /// background, marked as such (catalog then computes it rather than answer with its own stale copy).
    @Test func aStaleSharedPageAnswersAPatronAndIsFetchedAgainMarkedAsARefresh() async throws {
        let seen = Seen()
        try await catalog(seen).test(.live) { upstream in
            let config = Self.config(catalog: try #require(upstream.port))
            let clock = Mutex(ContinuousClock.now)
            let ann = try await Self.signedIn()
            try await buildGatewayApplication(config: config, cacheClock: { clock.withLock { $0 } }).testRouter { client in
                func lane() async throws -> String {
                    try await client.execute(uri: "/opds/lane", method: .get, headers: ann) { response in
                        #expect(response.status == .ok)
                        return String(buffer: response.body)
                    }
                }
                #expect(try await lane() == "the shared lane")
                #expect(!seen.all.contains("stale refresh lane"))
                clock.withLock { $0 += .seconds(61) }
                #expect(try await lane() == "the shared lane", "the stale copy, at once")
                for _ in 0..<1_200 where !seen.all.contains("stale refresh lane") { try await Task.sleep(for: .milliseconds(50)) }
                #expect(seen.all.filter { $0 == "anonymous lane" }.count == 2, "\(seen.all)")
                #expect(seen.all.contains("stale refresh lane"))
            }
        }
    }

    @Test func aSignedInPageIsTheHeldSharedPageWhenCatalogSaysSo() async throws {
        let seen = Seen()
        try await catalog(seen).test(.live) { upstream in
            let port = try #require(upstream.port)
            // A cache that outlives a slow run on a loaded machine: the shared page must cross the hop once.
            let config = TestConfig.base([
                "CATALOG_URLS": "http://127.0.0.1:\(port)", "PATRON_URLS": "http://127.0.0.1:1", "GATEWAY_PORT": "0", "EDGE_CACHE_TTL": "60s",
                "SHARED_PAGE_VERDICT_TTL": "0",
            ])
            let keys = await AccessTokenKeys(secret: TestConfig.jwtSecret)
            let token = try await keys.sign(AccessTokenPayload(patronID: UUID(), sessionID: UUID(), issuedAt: Date(), lifetime: 900))
            let signedIn: HTTPFields = [.authorization: "Bearer \(token)"]
            try await buildGatewayApplication(config: config).testRouter { client in
                for _ in 0..<3 {
                    try await client.execute(uri: "/opds/lane", method: .get, headers: signedIn) { response in
                        #expect(response.status == .ok)
                        #expect(String(buffer: response.body) == "the shared lane")
                        #expect(response.headers[.eTag] == "\"v7-s1\"")
                        #expect(response.headers[.cacheControl] == "private, no-cache")
                        #expect(response.headers[.sharedPageUsable] == nil, "internal headers stay inside")
                    }
                }
                var conditional = signedIn
                conditional[.ifNoneMatch] = "\"v7-s1\""
                try await client.execute(uri: "/opds/lane", method: .get, headers: conditional) { #expect($0.status == .notModified) }
                try await client.execute(uri: "/opds/touched", method: .get, headers: signedIn) { response in
                    #expect(String(buffer: response.body) == "my own page")
                    #expect(response.headers[.eTag] == "\"own\"")
                }
            }
        }
        #expect(seen.all.filter { $0 == "anonymous lane" }.count == 1, "the shared page crossed the hop once: \(seen.all)")
        #expect(seen.all.filter { $0 == "patron lane holding \"s1\"" }.count == 4)
    }

    /// Catalog answers a patron's page with their entries alone when the gateway holds the shared page uncompressed:
    /// the gateway splices them in, sends the page under catalog's ETag with its own length, and keeps it like a page
    /// catalog computed. A splice that does not fit the page held is a 502, never a broken page.
    @Test func aSpliceIsAppliedToTheHeldPageAndKept() async throws {
        let seen = Seen()
        try await catalog(seen).test(.live) { upstream in
            let config = Self.config(catalog: try #require(upstream.port))
            let ann = try await Self.signedIn()
            try await buildGatewayApplication(config: config).testRouter { client in
                for _ in 0..<2 {
                    try await client.execute(uri: "/opds/spliced", method: .get, headers: ann) { response in
                        #expect(response.status == .ok)
                        #expect(String(buffer: response.body) == "the patron's spliced")
                        #expect(response.headers[.contentLength] == "20")
                        #expect(response.headers[.eTag] == "\"v7s-s1\"")
                        #expect(response.headers[.cacheControl] == "private, no-cache")
                        #expect(response.headers[.splice] == nil && response.headers[.sharedPageUsable] == nil, "internal headers stay inside")
                    }
                }
                var conditional = ann
                conditional[.ifNoneMatch] = "\"v7s-s1\""
                try await client.execute(uri: "/opds/spliced", method: .get, headers: conditional) { #expect($0.status == .notModified) }
                try await client.execute(uri: "/opds/badspliced", method: .get, headers: ann) { response in
                    #expect(response.status == .badGateway)
                    #expect(!String(buffer: response.body).contains("patron's"))
                }
            }
        }
        #expect(seen.all.filter { $0 == "splice accepted spliced" }.count == 1, "asked once, then kept: \(seen.all)")
    }

    /// A page catalog computed for the patron (their shelf touches it) is kept like a verdict: repeated loads cost no
    /// hop; once it is older than `SHARED_PAGE_VERDICT_TTL` catalog is asked with its ETag and a 304 keeps the held
    /// bytes, also when the patron comes back much later (the copy is held up to an hour for that); the patron's own
    /// change (a new shelf version) asks for a new page at once.
    @Test func aPatronsOwnPageIsKeptLikeAVerdictThenRevalidated() async throws {
        let seen = Seen()
        try await patron(reportingShelfVersion: "43").test(.live) { patronServer in
            try await catalog(seen).test(.live) { catalogServer in
                let config = TestConfig.base([
                    "CATALOG_URLS": "http://127.0.0.1:\(try #require(catalogServer.port))",
                    "PATRON_URLS": "http://127.0.0.1:\(try #require(patronServer.port))",
                    "GATEWAY_PORT": "0", "EDGE_CACHE_TTL": "60s", "SHARED_PAGE_VERDICT_TTL": "10s",
                ])
                // The caches' time moves only when the test moves it: a loaded machine cannot expire a page early.
                let clock = Mutex(ContinuousClock.now)
                let ann = try await Self.signedIn()
                let asked: @Sendable () -> Int = { seen.all.filter { $0.hasPrefix("patron touched holding") }.count }
                let revalidated: @Sendable () -> Int = { seen.all.filter { $0 == "patron touched revalidated" }.count }
                try await buildGatewayApplication(config: config, cacheClock: { clock.withLock { $0 } }).testRouter { client in
                    func load() async throws {
                        try await client.execute(uri: "/opds/touched", method: .get, headers: ann) { response in
                            #expect(response.status == .ok)
                            #expect(String(buffer: response.body) == "my own page" && response.headers[.eTag] == "\"own\"")
                            #expect(response.headers[.age] == nil)
                        }
                    }
                    for _ in 0..<3 { try await load() }
                    var conditional = ann
                    conditional[.ifNoneMatch] = "\"own\""
                    try await client.execute(uri: "/opds/touched", method: .get, headers: conditional) { #expect($0.status == .notModified) }
                    #expect(asked() == 1 && revalidated() == 0, "kept after the first load: \(seen.all)")

                    clock.withLock { $0 += .seconds(15) }  // past the verdict's time
                    try await load()
                    #expect(asked() == 2 && revalidated() == 1, "asked again with its ETag, 304, the held bytes sent: \(seen.all)")
                    clock.withLock { $0 += .seconds(20 * 60) }  // the patron comes back to the page later
                    try await load()
                    #expect(asked() == 3 && revalidated() == 2, "still asked with its ETag, not for the page's bytes: \(seen.all)")

                    #expect(try await client.execute(uri: "/me/books/\(UUID())/borrow", method: .post, headers: ann) { $0.status } == .created)
                    try await load()
                    #expect(asked() == 4 && revalidated() == 2, "Ann's change (a new shelf version) asks for a new page: \(seen.all)")
                }
            }
        }
    }

    /// Patron says which shelf version catalog now holds after a change; the gateway keeps that to itself and tells
    /// catalog with the patron's next requests, so that a catalog replica with an older copy reads the newer one.
    @Test func theShelfVersionAChangeReportedReachesCatalogWithThePatronsNextRequests() async throws {
        let seen = Seen()
        let patron = Router()
        patron.post("/me/books/:id/borrow") { _, _ in
            Response(
                status: .created,
                headers: [.shelfVersion: "41", .contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: "{}"))
            )
        }
        let catalog = Router()
        catalog.get("/opds/shelf") { request, _ in
            seen.add("shelf version \(request.headers[.shelfVersion] ?? "none")")
            return Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "mine")))
        }
        let patronApp = Application(router: patron, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        let catalogApp = Application(router: catalog, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await patronApp.test(.live) { patronServer in
            try await catalogApp.test(.live) { catalogServer in
                let config = TestConfig.base([
                    "CATALOG_URLS": "http://127.0.0.1:\(try #require(catalogServer.port))",
                    "PATRON_URLS": "http://127.0.0.1:\(try #require(patronServer.port))",
                    "GATEWAY_PORT": "0",
                ])
                let keys = await AccessTokenKeys(secret: TestConfig.jwtSecret)
                let ann = try await keys.sign(AccessTokenPayload(patronID: UUID(), sessionID: UUID(), issuedAt: Date(), lifetime: 900))
                let bob = try await keys.sign(AccessTokenPayload(patronID: UUID(), sessionID: UUID(), issuedAt: Date(), lifetime: 900))
                try await buildGatewayApplication(config: config).testRouter { client in
                    try await client.execute(uri: "/opds/shelf", method: .get, headers: [.authorization: "Bearer \(ann)"]) { _ in }
                    try await client.execute(uri: "/me/books/\(UUID())/borrow", method: .post, headers: [.authorization: "Bearer \(ann)"]) {
                        response in
                        #expect(response.status == .created)
                        #expect(response.headers[.shelfVersion] == nil, "internal headers stay inside")
                    }
                    try await client.execute(uri: "/opds/shelf", method: .get, headers: [.authorization: "Bearer \(ann)"]) { _ in }
                    try await client.execute(uri: "/opds/shelf", method: .get, headers: [.authorization: "Bearer \(bob)"]) { _ in }
                    // A client cannot claim a version for itself.
                    try await client.execute(uri: "/opds/shelf", method: .get, headers: [.authorization: "Bearer \(bob)", .shelfVersion: "99"]) { _ in
                    }
                }
            }
        }
        #expect(seen.all == ["shelf version none", "shelf version 41", "shelf version none", "shelf version none"])
    }

    /// Catalog's "this shared page is yours" is remembered for a moment per patron, page and shelf version: repeated
    /// loads cost no hop, and the patron's own change through the gateway (a new shelf version) asks again at once.
    @Test func theVerdictIsRememberedUntilThePatronChangesTheirShelf() async throws {
        let seen = Seen()
        try await patron(reportingShelfVersion: "42").test(.live) { patronServer in
            try await catalog(seen).test(.live) { catalogServer in
                let config = TestConfig.base([
                    "CATALOG_URLS": "http://127.0.0.1:\(try #require(catalogServer.port))",
                    "PATRON_URLS": "http://127.0.0.1:\(try #require(patronServer.port))",
                    "GATEWAY_PORT": "0", "EDGE_CACHE_TTL": "60s", "SHARED_PAGE_VERDICT_TTL": "60s",
                ])
                let ann = try await Self.signedIn()
                let bob = try await Self.signedIn()
                try await buildGatewayApplication(config: config).testRouter { client in
                    func load(_ who: HTTPFields) async throws {
                        try await client.execute(uri: "/opds/lane", method: .get, headers: who) { response in
                            #expect(String(buffer: response.body) == "the shared lane" && response.headers[.eTag] == "\"v7-s1\"")
                        }
                    }
                    for _ in 0..<3 { try await load(ann) }
                    try await load(bob)
                    #expect(try await client.execute(uri: "/me/books/\(UUID())/borrow", method: .post, headers: ann) { $0.status } == .created)
                    try await load(ann)
                    try await load(ann)
                }
            }
        }
        #expect(seen.all.filter { $0 == "patron lane holding \"s1\"" }.count == 3, "Ann once, Bob once, Ann after her change: \(seen.all)")
    }

    /// A catalog stand-in whose shared pages say which books they show (`X-Internal-Page-Books`): `/opds/first` shows
    /// books 1 and 2, `/opds/third` book 9, any other book 3. Ann's shelf holds book 1 (version 3), Bob's book 9
    /// (version 5, then 6 once he borrows through the gateway).
    static let books = (1...9).map { UUID(uuidString: "00000000-0000-0000-0000-00000000000\($0)")! }

    func joiningCatalog(_ seen: Seen, ann: UUID, bob: UUID) -> some ApplicationProtocol {
        let router = Router()
        router.get("/opds/:page") { request, context in
            let page = context.parameters.get("page") ?? ""
            guard let patron = request.headers[.patronID] else {
                seen.add("anonymous \(page)")
                let shown: Set<UUID> = page == "first" ? [Self.books[0], Self.books[1]] : page == "third" ? [Self.books[8]] : [Self.books[2]]
                return Response(
                    status: .ok,
                    headers: [
                        .contentType: "text/plain", .eTag: "\"s-\(page)\"", .cacheControl: "public, max-age=300",
                        .pageBooks: PersonalPage.pageBooksHeader(shown),
                    ],
                    body: .init(byteBuffer: ByteBuffer(string: "the shared \(page)"))
                )
            }
            seen.add("page \(page) for \(patron == ann.lowercased ? "Ann" : "Bob")")
            seen.add("asked from version \(request.headers[.shelfVersion] ?? "none")")
            return Response(
                status: .ok,
                headers: [.eTag: "\"own-\(page)\"", .cacheControl: "private, no-cache"],
                body: .init(byteBuffer: ByteBuffer(string: "\(patron == ann.lowercased ? "Ann" : "Bob")'s own \(page)"))
            )
        }
        router.get("/internal/shelves/:patron") { request, context in
            let isAnn = context.parameters.get("patron") == ann.lowercased
            let heard = request.headers[.shelfVersion]
            seen.add("summary of \(isAnn ? "Ann" : "Bob") heard \(heard ?? "nothing")")
            let summary =
                isAnn ? ShelfSummary(version: 3, touched: [Self.books[0]]) : ShelfSummary(version: heard == "6" ? 6 : 5, touched: [Self.books[8]])
            return try JSONMessages.response(summary)
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    /// The gateway joins a shared page it holds with what it knows of a patron's shelf: a page none of whose books the
    /// patron's shelf touches is theirs as it is (their version in its ETag) with no hop to catalog; a page their shelf
    /// touches is catalog's page for them, never another patron's; the shelf is asked once per patron and version,
    /// again at once after the patron's own change; the page's books never leave the gateway.
    @Test func aSharedPageIsJoinedWithThePatronsShelfInTheGateway() async throws {
        let seen = Seen()
        let (ann, bob) = (UUID(), UUID())
        try await patron(reportingShelfVersion: "6").test(.live) { patronServer in
            try await joiningCatalog(seen, ann: ann, bob: bob).test(.live) { catalogServer in
                let config = TestConfig.base([
                    "CATALOG_URLS": "http://127.0.0.1:\(try #require(catalogServer.port))",
                    "PATRON_URLS": "http://127.0.0.1:\(try #require(patronServer.port))",
                    "GATEWAY_PORT": "0", "EDGE_CACHE_TTL": "60s", "SHARED_PAGE_VERDICT_TTL": "60s",
                ])
                let (annAuth, bobAuth) = (try await Self.signedIn(as: ann), try await Self.signedIn(as: bob))
                try await buildGatewayApplication(config: config).testRouter { client in
                    func load(_ page: String, _ who: HTTPFields, body: String, etag: String) async throws {
                        try await client.execute(uri: "/opds/\(page)", method: .get, headers: who) { response in
                            #expect(response.status == .ok)
                            #expect(String(buffer: response.body) == body)
                            #expect(response.headers[.eTag] == etag)
                            #expect(response.headers[.pageBooks] == nil, "the page's books stay inside")
                        }
                    }
                    try await client.execute(uri: "/opds/first", method: .get) { #expect($0.headers[.pageBooks] == nil) }
                    for _ in 0..<2 {
                        try await load("first", bobAuth, body: "the shared first", etag: "\"v5-s-first\"")
                        try await load("second", bobAuth, body: "the shared second", etag: "\"v5-s-second\"")
                        try await load("second", annAuth, body: "the shared second", etag: "\"v3-s-second\"")
                    }
                    try await load("first", annAuth, body: "Ann's own first", etag: "\"own-first\"")
                    var conditional = bobAuth
                    conditional[.ifNoneMatch] = "\"v5-s-first\""
                    try await client.execute(uri: "/opds/first", method: .get, headers: conditional) { #expect($0.status == .notModified) }
                    #expect(try await client.execute(uri: "/me/books/\(UUID())/borrow", method: .post, headers: bobAuth) { $0.status } == .created)
                    try await load("first", bobAuth, body: "the shared first", etag: "\"v6-s-first\"")
                }
            }
        }
        #expect(seen.all.filter { $0.hasPrefix("anonymous") }.count == 2, "each shared page crossed the hop once: \(seen.all)")
        #expect(seen.all.filter { $0.hasPrefix("summary of Bob") } == ["summary of Bob heard nothing", "summary of Bob heard 6"], "\(seen.all)")
        #expect(seen.all.filter { $0.hasPrefix("summary of Ann") }.count == 1, "\(seen.all)")
        #expect(seen.all.filter { $0.hasPrefix("page ") } == ["page first for Ann"], "only the page Ann's shelf touches went to catalog: \(seen.all)")
    }

    /// A page a patron's shelf touches, once catalog made it for them, is theirs for as long as their shelf's version
    /// stands (catalog makes it from the shared page and its copy of the shelf alone), not just for
    /// `SHARED_PAGE_VERDICT_TTL`: coming back to it costs no hop. Catalog is asked to answer from at least the version the
    /// gateway's summary names, and a new version (Bob's borrow) asks for a new page at once.
    @Test func aPatronsOwnPageIsKeptWhileTheirShelfVersionStands() async throws {
        let seen = Seen()
        let (ann, bob) = (UUID(), UUID())
        try await patron(reportingShelfVersion: "6").test(.live) { patronServer in
            try await joiningCatalog(seen, ann: ann, bob: bob).test(.live) { catalogServer in
                let config = TestConfig.base([
                    "CATALOG_URLS": "http://127.0.0.1:\(try #require(catalogServer.port))",
                    "PATRON_URLS": "http://127.0.0.1:\(try #require(patronServer.port))",
                    "GATEWAY_PORT": "0", "EDGE_CACHE_TTL": "600s", "SHARED_PAGE_VERDICT_TTL": "1s",
                ])
                let clock = Mutex(ContinuousClock.now)
                let (annAuth, bobAuth) = (try await Self.signedIn(as: ann), try await Self.signedIn(as: bob))
                let pagesAsked: @Sendable () -> [String] = { seen.all.filter { $0.hasPrefix("page ") } }
                try await buildGatewayApplication(config: config, cacheClock: { clock.withLock { $0 } }).testRouter { client in
                    func load(_ page: String, _ who: HTTPFields, body: String) async throws {
                        try await client.execute(uri: "/opds/\(page)", method: .get, headers: who) { response in
                            #expect(response.status == .ok)
                            #expect(String(buffer: response.body) == body)
                        }
                    }
                    try await load("third", bobAuth, body: "Bob's own third")
                    #expect(pagesAsked() == ["page third for Bob"])
                    #expect(seen.all.contains("asked from version 5"), "catalog answers from the summary's version: \(seen.all)")
                    clock.withLock { $0 += .seconds(120) }  // long past the verdict's time, the shelf unchanged
                    try await load("third", bobAuth, body: "Bob's own third")
                    #expect(pagesAsked() == ["page third for Bob"], "no hop while version 5 stands: \(seen.all)")
                    try await load("third", annAuth, body: "the shared third")
                    #expect(try await client.execute(uri: "/me/books/\(UUID())/borrow", method: .post, headers: bobAuth) { $0.status } == .created)
                    try await load("third", bobAuth, body: "Bob's own third")
                    #expect(pagesAsked() == ["page third for Bob", "page third for Bob"], "version 6 asks again: \(seen.all)")
                    #expect(seen.all.contains("asked from version 6"), "\(seen.all)")
                }
            }
        }
    }
}
