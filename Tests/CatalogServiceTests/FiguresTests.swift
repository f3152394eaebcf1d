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

/// Circulation figures from patron: one book's, or many at once (what patron's outbox sends). The popularity order
/// reads `popularity`, which follows the checkouts patron reports exactly below 20 and then when they moved by a
/// tenth: most figures updates then leave every indexed column alone and are HOT (docs/PERFORMANCE.md).
extension CatalogServiceTests {
    @Test func manyBooksFiguresAtOnceApplyEachUnlessNewerOnesAreStored() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            let urns = [try await ingestBook(client, title: "Delta"), try await ingestBook(client, title: "Estuary")]
            let (delta, estuary) = (UUID(uuidString: String(urns[0].dropFirst(9)))!, UUID(uuidString: String(urns[1].dropFirst(9)))!)
            func figures(_ book: UUID, available: Int, version: Int64, rating: Double? = nil) -> CirculationFigures {
                CirculationFigures(
                    bookId: book,
                    copiesTotal: 3,
                    copiesAvailable: available,
                    holds: 3 - available,
                    checkouts: 5,
                    ratingAverage: rating,
                    ratingCount: rating == nil ? 0 : 1,
                    version: version
                )
            }
            func put(_ body: Data, token: String = TestConfig.serviceToken) async throws -> HTTPResponse.Status {
                try await client.execute(
                    uri: InternalRoute.figures.path,
                    method: .put,
                    headers: [.serviceToken: token, .contentType: "application/json"],
                    body: ByteBuffer(data: body)
                ) { $0.status }
            }
            func stored() async throws -> [String] {
                try await TestDatabase.query(
                    """
                    SELECT title || ':' || copies_available || ':' || holds || ':' || coalesce(rating_average::text, '-') || ':' || figures_version
                    FROM books WHERE id IN ('\(delta)', '\(estuary)') ORDER BY title
                    """,
                    on: url
                )
            }
            let first = [figures(delta, available: 1, version: 2, rating: 4.5), figures(estuary, available: 0, version: 7)]
            #expect(try await put(try WireFormat.encode(first)) == .noContent)
            #expect(try await stored() == ["Delta:1:2:4.5:2", "Estuary:0:3:-:7"])
            // A stale one (version 6 < 7) changes nothing; the newest of two for one book wins.
            let second = [
                figures(estuary, available: 3, version: 6), figures(delta, available: 2, version: 4), figures(delta, available: 3, version: 3),
            ]
            #expect(try await put(try WireFormat.encode(second)) == .noContent)
            #expect(try await stored() == ["Delta:2:1:-:4", "Estuary:0:3:-:7"])
            #expect(try await put(Data("[{\"bookId\": 1}]".utf8)) == .badRequest)
            #expect(try await put(Data("[]".utf8), token: "wrong") == .unauthorized)
            #expect(try await stored() == ["Delta:2:1:-:4", "Estuary:0:3:-:7"])
        }
    }

    @Test func thePopularLaneFollowsCheckoutsExactlyWhileFewAndWithinATenthWhenMany() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            let urns = [
                try await ingestBook(client, title: "Anchor"), try await ingestBook(client, title: "Beacon"),
                try await ingestBook(client, title: "Cove"),
            ]
            let (anchor, beacon, cove) = (UUID(uuidString: String(urns[0].dropFirst(9)))!, UUID(uuidString: String(urns[1].dropFirst(9)))!, urns[2])
            var versions: [UUID: Int64] = [:]
            func report(_ book: UUID, checkouts: Int) async throws {
                versions[book, default: 0] += 1
                let figures = CirculationFigures(
                    bookId: book,
                    copiesTotal: 1,
                    copiesAvailable: 1,
                    holds: 0,
                    checkouts: checkouts,
                    ratingAverage: nil,
                    ratingCount: 0,
                    version: versions[book]!
                )
                let status = try await client.execute(
                    uri: InternalRoute.bookFigures(book).path,
                    method: .put,
                    headers: [.serviceToken: TestConfig.serviceToken, .contentType: "application/json"],
                    body: ByteBuffer(data: try WireFormat.encode(figures))
                ) { $0.status }
                #expect(status.code < 300)
            }
            func popularity(_ book: UUID) async throws -> [String] {
                try await TestDatabase.query("SELECT popularity::text || '/' || checkouts FROM books WHERE id = '\(book)'", on: url)
            }
            // A page size not asked before: the shared page is cached (`FEED_CACHE_TTL`).
            var size = 10
            func popularLane() async throws -> [String] {
                size += 1
                return ids(try await opds2(client, "/opds/lanes/popular?size=\(size)"))
            }

            try await report(anchor, checkouts: 3)
            try await report(beacon, checkouts: 25)
            #expect(try await popularLane() == [urns[1], urns[0]], "a book never borrowed is not popular: \(cove)")
            try await report(beacon, checkouts: 26)
            #expect(try await popularity(beacon) == ["25/26"], "within a tenth of 25: the index is left alone")
            try await report(anchor, checkouts: 19)
            #expect(try await popularity(anchor) == ["19/19"], "below 20 every checkout counts")
            try await report(anchor, checkouts: 27)
            #expect(try await popularity(anchor) == ["27/27"])
            #expect(try await popularLane() == [urns[0], urns[1]])
            try await report(beacon, checkouts: 28)
            #expect(try await popularity(beacon) == ["28/28"], "moved by 3 from 25: past a tenth")
        }
    }
}
