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

/// What the gateway keeps so that catalog and patron need not do the same work again: a downloaded EPUB, sent again
/// only when catalog allows the download (304 to the held copy's ETag), and a Basic check, asked once for concurrent
/// requests with the same credentials.
@Suite struct HeldFilesMiddlewareTests {
    final class Seen: Sendable {
        private let value = Mutex<[String]>([])
        func add(_ what: String) { value.withLock { $0.append(what) } }
        var all: [String] { value.withLock { $0 } }
    }

    /// A gateway in front of the catalog stand-in on `port` (patron down: tokens are accepted without their session check).
    static func gatewayConfig(catalog port: Int, _ more: [String: String] = [:]) -> ServiceConfig {
        TestConfig.base(["CATALOG_URLS": "http://127.0.0.1:\(port)", "PATRON_URLS": "http://127.0.0.1:1", "GATEWAY_PORT": "0"].merging(more) { $1 })
    }

    static func token(for patron: UUID) async throws -> String {
        let keys = await AccessTokenKeys(secret: TestConfig.jwtSecret)
        return try await keys.sign(AccessTokenPayload(patronID: patron, sessionID: UUID(), issuedAt: Date(), lifetime: 900))
    }

    @Test func aHeldEPUBIsSentOnlyWhenCatalogAllowsTheDownload() async throws {
        let seen = Seen()
        let ann = UUID()
        let router = Router()
        router.get("/books/:id/fulfill") { request, _ in
            guard request.headers[.patronID] == ann.lowercased else {
                seen.add("refused")
                return Problem.forbidden("no loan").response()
            }
            if request.headers[.ifNoneMatch] == "\"f1\"" {
                seen.add("304")
                return Response(status: .notModified, headers: [.eTag: "\"f1\"", .cacheControl: "private, no-store"])
            }
            seen.add(request.headers[.range] == nil ? "bytes" : "range")
            return Response(
                status: .ok,
                headers: [.eTag: "\"f1\"", .contentType: MediaType.epub, .cacheControl: "private, no-store"],
                body: .init(byteBuffer: ByteBuffer(string: "the EPUB's bytes"))
            )
        }
        let catalog = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await catalog.test(.live) { catalogServer in
            let config = Self.gatewayConfig(catalog: try #require(catalogServer.port))
            let annHeaders: HTTPFields = [.authorization: "Bearer \(try await Self.token(for: ann))"]
            let bobHeaders: HTTPFields = [.authorization: "Bearer \(try await Self.token(for: UUID()))"]
            let path = "/books/\(UUID().lowercased)/fulfill"
            try await buildGatewayApplication(config: config).testRouter { client in
                for _ in 0..<2 {
                    try await client.execute(uri: path, method: .get, headers: annHeaders) { response in
                        #expect(response.status == .ok && String(buffer: response.body) == "the EPUB's bytes")
                        #expect(response.headers[.eTag] == "\"f1\"" && response.headers[.age] == nil)
                    }
                }
                try await client.execute(uri: path, method: .get, headers: bobHeaders) { #expect($0.status == .forbidden) }
                var ranged = annHeaders
                ranged[.range] = "bytes=0-3"
                try await client.execute(uri: path, method: .get, headers: ranged) { #expect($0.status == .ok) }
            }
        }
        #expect(seen.all == ["bytes", "304", "refused", "range"], "the file crossed once; every download was asked: \(seen.all)")
    }

    /// Concurrent first downloads of one file: the file crosses the hop once; the other requests wait for that copy and
    /// are each still allowed by catalog (304 to the copy's ETag). Through the router, so that the four requests really
    /// are concurrent (the live test client sends them down one connection, one after another, and gives up after 20 s
    /// on a loaded machine).
    @Test func concurrentFirstDownloadsOfAFileFetchItOnce() async throws {
        let seen = Seen()
        let ann = UUID()
        let file = String(repeating: "the EPUB's bytes ", count: 20_000)
        let router = Router()
        router.get("/books/:id/fulfill") { request, _ in
            if request.headers[.ifNoneMatch] == "\"f2\"" {
                seen.add("304")
                return Response(status: .notModified, headers: [.eTag: "\"f2\"", .cacheControl: "private, no-store"])
            }
            seen.add("bytes")
            try await Task.sleep(for: .milliseconds(300))  // a file on its way: the other requests arrive meanwhile
            return Response(
                status: .ok,
                headers: [.eTag: "\"f2\"", .contentType: MediaType.epub, .cacheControl: "private, no-store"],
                body: .init(byteBuffer: ByteBuffer(string: file))
            )
        }
        let catalog = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await catalog.test(.live) { catalogServer in
            // Waiting longer than the loaded test process can take to fetch the file (over 30 s once in the whole suite).
            let config = Self.gatewayConfig(catalog: try #require(catalogServer.port), ["HELD_FILE_WAIT": "120"])
            let headers: HTTPFields = [.authorization: "Bearer \(try await Self.token(for: ann))"]
            let path = "/books/\(UUID().lowercased)/fulfill"
            try await buildGatewayApplication(config: config).testRouter { client in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            try await client.execute(uri: path, method: .get, headers: headers) { response in
                                #expect(response.status == .ok && String(buffer: response.body) == file)
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }
        #expect(seen.all.sorted() == ["304", "304", "304", "bytes"], "the file crossed once, every download was asked: \(seen.all)")
    }

    @Test func concurrentRequestsWithTheSameBasicCredentialsCostOneCheck() async throws {
        let checks = Atomic(0)
        let patronID = UUID()
        let router = Router()
        router.post("/internal/auth/basic") { _, _ in
            checks.add(1, ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(300))  // a bcrypt's time: the other requests arrive meanwhile
            return try JSONMessages.response(AuthenticatedPatron(patronId: patronID, secretStamp: nil))
        }
        router.get("/me") { _, _ in Response(status: .ok) }
        let patron = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await patron.test(.live) { patronServer in
            let config = TestConfig.base([
                "CATALOG_URLS": "http://127.0.0.1:1", "PATRON_URLS": "http://127.0.0.1:\(try #require(patronServer.port))",
                "GATEWAY_PORT": "0",
            ])
            let basic: HTTPFields = [.authorization: "Basic " + Data("23333000000001:1357".utf8).base64EncodedString()]
            try await buildGatewayApplication(config: config).testRouter { client in
                try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                    for _ in 0..<12 { group.addTask { try await client.execute(uri: "/me", method: .get, headers: basic) { $0.status } } }
                    for try await status in group { #expect(status == .ok) }
                }
            }
        }
        #expect(checks.load(ordering: .relaxed) == 1, "one bcrypt for twelve concurrent requests")
    }
}
