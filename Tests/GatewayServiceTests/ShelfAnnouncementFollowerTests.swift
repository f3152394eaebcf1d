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

/// While the gateway follows catalog's shelf announcements, what it knows of a patron's shelf holds until catalog
/// announces a newer version (here with `SHARED_PAGE_VERDICT_TTL` 0: without following, nothing would be kept).
@Suite struct ShelfAnnouncementFollowerTests {
    final class Catalog: Sendable {
        let summaries = Mutex(0)
        let polls = Mutex(0)
        let bobVersion = Mutex<Int64>(5)
        /// Announcements not yet given to the follower.
        let pending = Mutex<[ShelfAnnouncements.Change]>([])
    }

    static let book = UUID()

    func catalog(_ state: Catalog) -> some ApplicationProtocol {
        let router = Router()
        router.get("/opds/:page") { _, _ in
            Response(
                status: .ok,
                headers: [
                    .contentType: "text/plain", .eTag: "\"s1\"", .cacheControl: "public, max-age=300",
                    .pageBooks: PersonalPage.pageBooksHeader([Self.book]),
                ],
                body: .init(byteBuffer: ByteBuffer(string: "the shared page"))
            )
        }
        router.get("/internal/shelves/:patron") { _, _ in
            state.summaries.withLock { $0 += 1 }
            return try JSONMessages.response(ShelfSummary(version: state.bobVersion.withLock { $0 }, touched: []))
        }
        router.get("/internal/shelf-announcements") { request, _ in
            let poll = state.polls.withLock {
                $0 += 1
                return $0
            }
            let after = Int64(request.uri.queryParameters["after"].map(String.init) ?? "0") ?? 0
            if poll == 1 { return try JSONMessages.response(ShelfAnnouncements(epoch: "e1", next: 0, reset: true, changes: [])) }
            try await Task.sleep(for: .milliseconds(100))
            let changes = state.pending.withLock { pending in
                defer { pending = [] }
                return pending
            }
            return try JSONMessages.response(ShelfAnnouncements(epoch: "e1", next: after + Int64(changes.count), reset: false, changes: changes))
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    @Test func aSummaryHoldsUntilANewerVersionIsAnnounced() async throws {
        let state = Catalog()
        let bob = UUID()
        try await catalog(state).test(.live) { catalogServer in
            let config = TestConfig.base([
                "CATALOG_URLS": "http://127.0.0.1:\(try #require(catalogServer.port))", "PATRON_URLS": "http://127.0.0.1:1",
                "GATEWAY_PORT": "0", "EDGE_CACHE_TTL": "60s", "SHARED_PAGE_VERDICT_TTL": "0",
            ])
            let keys = await AccessTokenKeys(secret: TestConfig.jwtSecret)
            let token = try await keys.sign(AccessTokenPayload(patronID: bob, sessionID: UUID(), issuedAt: Date(), lifetime: 900))
            try await buildGatewayApplication(config: config).test(.live) { client in
                func etag() async throws -> String? {
                    try await client.execute(uri: "/opds/lane", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                        #expect(String(buffer: response.body) == "the shared page")
                        return response.headers[.eTag]
                    }
                }
                try await eventually(timeout: .seconds(60), "the gateway follows the announcements") { state.polls.withLock { $0 } >= 3 }
                for _ in 0..<3 { #expect(try await etag() == "\"v5-s1\"") }
                #expect(state.summaries.withLock { $0 } == 1, "kept while followed")
                state.bobVersion.withLock { $0 = 6 }
                state.pending.withLock { $0 = [.init(patron: bob, version: 6)] }
                try await eventually(timeout: .seconds(60), "the announced version shows") { try await etag() == "\"v6-s1\"" }
                #expect(state.summaries.withLock { $0 } == 2)
            }
        }
    }
}
