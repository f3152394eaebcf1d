import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresSupport
import Shared
import TestSupport
import Testing

@testable import PatronService

/// `PUT /internal/licenses`: catalog's outbox sends a bulk ingest's licences fifty to a request. Each is stored as
/// `PUT /internal/licenses/{id}` stores one (newer versions only, more copies offered to the queue), all in one
/// transaction; a bad batch changes nothing.
@Suite struct LicenseBatchTests {
    func app() async throws -> (some ApplicationProtocol, String) {
        let url = try await TestDatabase.create(prefix: "licbatch")
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": url, "EXPIRY_INTERVAL": "3600"]))
        return (app, url)
    }

    func license(_ book: UUID, copies: Int, version: Int64, title: String = "Book") -> License {
        License(
            bookId: book,
            copies: copies,
            openAccess: false,
            withdrawn: false,
            title: title,
            authors: ["A. Writer"],
            version: version,
            hasCover: true
        )
    }

    func body(_ licenses: [License]) throws -> String { String(decoding: try WireFormat.encode(licenses), as: UTF8.self) }

    func copies(_ book: UUID, url: String) async throws -> [String] {
        try await TestDatabase.query("SELECT copies || ' v' || version FROM licenses WHERE book_id = '\(book.lowercased)'", on: url)
    }

    @Test func aBatchStoresEachLicenceAsTheOneBookRouteWould() async throws {
        let (app, url) = try await app()
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let (fresh, awaited, stale, twice) = (UUID(), UUID(), UUID(), UUID())
            try await api.license(awaited, copies: 0, version: 1)
            try await api.license(stale, copies: 4, version: 3)
            let waiting = try await api.newPatron()
            #expect(try await api.call(.post, "/me/books/\(awaited)/hold", patron: waiting).status == .created)

            let batch = [
                license(fresh, copies: 2, version: 1),
                license(awaited, copies: 1, version: 2),
                license(stale, copies: 9, version: 2),
                license(twice, copies: 5, version: 2),
                license(twice, copies: 7, version: 3),
            ]
            let reply = try await api.call(.put, InternalRoute.licenses.path, json: try body(batch))
            #expect(reply.status == .noContent)
            #expect(try await copies(fresh, url: url) == ["2 v1"])
            #expect(try await copies(awaited, url: url) == ["1 v2"])
            #expect(try await copies(stale, url: url) == ["4 v3"], "an older version is ignored")
            #expect(try await copies(twice, url: url) == ["7 v3"], "the newest of one book's licences in a batch")
            // The copy that came is offered to the patron waiting, as a single licence's update offers it.
            let offered = try await api.call(.get, "/me/books/\(awaited)", patron: waiting).decode(BookStatus.self)
            #expect(offered.state == .loanOffered)
            // Sent again (the outbox may deliver twice): nothing changes.
            #expect(try await api.call(.put, InternalRoute.licenses.path, json: try body(batch)).status == .noContent)
            #expect(try await copies(twice, url: url) == ["7 v3"])
            #expect(try await api.call(.put, InternalRoute.licenses.path, json: "[]").status == .noContent)
        }
    }

    @Test func aBadBatchIsA4xxAndStoresNoneOfIt() async throws {
        let (app, url) = try await app()
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let (good, bad) = (UUID(), UUID())
            let negative = try await api.call(
                .put,
                InternalRoute.licenses.path,
                json: try body([license(good, copies: 1, version: 1), license(bad, copies: -1, version: 1)])
            )
            #expect(negative.status == .badRequest)
            #expect(negative.headers[.contentType] == "application/problem+json")
            let many = (0...1_000).map { _ in license(UUID(), copies: 1, version: 1) }
            #expect(try await api.call(.put, InternalRoute.licenses.path, json: try body(many)).status == .badRequest)
            #expect(try await api.call(.put, InternalRoute.licenses.path, json: #"{"bookId": "x"}"#).status == .badRequest)
            #expect(try await api.call(.put, InternalRoute.licenses.path, json: "[{}]").status == .badRequest)
            #expect(try await TestDatabase.query("SELECT count(*)::text FROM licenses", on: url) == ["0"])
            var headers: HTTPFields = [:]
            headers[.contentType] = "application/json"
            let anonymous = try await client.execute(uri: InternalRoute.licenses.path, method: .put, headers: headers, body: ByteBuffer(string: "[]"))
            { $0.status }
            #expect(anonymous == .unauthorized || anonymous == .forbidden, "the service token is required")
        }
    }
}
