import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import PatronService

/// `Idempotency-Key` on a patron's writes (`IdempotencyKeyMiddleware`), through the router against PostgreSQL.
@Suite struct IdempotencyKeyTests {
    static let keyField = HTTPField.Name("Idempotency-Key")!

    @Test func aKeyIsAStructuredStringOrBareTextOfVisibleCharacters() throws {
        #expect(try IdempotencyKey(header: #""8e03978e-40d5-43e8-bc93-6894a57f9324""#).value == "8e03978e-40d5-43e8-bc93-6894a57f9324")
        #expect(try IdempotencyKey(header: "abc-123").value == "abc-123")
        for bad in ["", "\"\"", "with space", String(repeating: "k", count: 256), "é"] {
            #expect((try? IdempotencyKey(header: bad)) == nil, "\(bad)")
        }
    }

    @Test func aRetryGetsTheFirstAnswerAndChangesNothing() async throws {
        let (app, _) = try await CirculationTests().app()
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 1)
            let patron = try await api.newPatron()
            let key: HTTPFields = [Self.keyField: "\"first-borrow\""]
            let first = try await api.call(.post, "/me/books/\(book)/borrow", patron: patron, headers: key)
            #expect(first.status == .created)
            #expect(try await api.call(.post, "/me/books/\(book)/return", patron: patron).status == .ok)
            let retry = try await api.call(.post, "/me/books/\(book)/borrow", patron: patron, headers: key)
            #expect(retry.status == .created && retry.body == first.body && retry.headers[IdempotencyKey.replayedField] == "true")
            #expect(try await api.call(.get, "/me/books/\(book)", patron: patron).json["state"] as? String != "not_downloaded", "still returned")

            // Another patron's same key is another key.
            let other = try await api.newPatron()
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: other, headers: key).status == .created)

            // The same key with another request is refused, and changes nothing.
            let reused = try await api.call(.post, "/me/books/\(book)/hold", patron: patron, headers: key)
            #expect(
                reused.status == .unprocessableContent && reused.json["type"] as? String == "https://bookmobile.dev/problems/idempotency-key-reused"
            )
            let invalid = try await api.call(.post, "/me/books/\(book)/hold", patron: patron, headers: [Self.keyField: "two words"])
            #expect(invalid.status == .badRequest)
        }
    }

    @Test func aRefusedWriteKeepsNoKeySoItsRetryIsCarriedOut() async throws {
        let (app, _) = try await CirculationTests().app()
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 1)
            let (holder, patron) = (try await api.newPatron(), try await api.newPatron())
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: holder).status == .created)
            let key: HTTPFields = [Self.keyField: "borrow-when-free"]
            let refused = try await api.call(.post, "/me/books/\(book)/borrow", patron: patron, headers: key)
            #expect(refused.status == .conflict, "no copy free")
            #expect(try await api.call(.post, "/me/books/\(book)/return", patron: holder).status == .ok)
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: patron, headers: key).status == .created)
        }
    }

    @Test func aBookmarkRetriedAtOnceIsKeptOnce() async throws {
        let (app, _) = try await CirculationTests().app()
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 1)
            let patron = try await api.newPatron()
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: patron).status == .created)
            let key: HTTPFields = [Self.keyField: "mark-1"]
            let body = #"{"locator":{"href":"ch1.xhtml","progression":0.25}}"#
            let replies = try await withThrowingTaskGroup(of: PatronTestClient.Reply.self) { group in
                for _ in 0..<6 {
                    group.addTask { try await api.call(.post, "/me/books/\(book)/bookmarks", patron: patron, json: body, headers: key) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let ids = Set(replies.compactMap { $0.json["id"] as? String })
            #expect(ids.count == 1, "\(replies.map(\.status))")
            #expect(replies.allSatisfy { [.created, .conflict].contains($0.status) }, "\(replies.map(\.status))")
        }
    }
}
