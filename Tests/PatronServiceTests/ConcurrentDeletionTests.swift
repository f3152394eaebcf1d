import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Shared
import TestSupport
import Testing

@testable import PatronService

/// An account deleted while its own circulation requests run: each request either happens before the deletion or finds
/// nobody (401), and none fails on a deadlock between the two (a 500).
@Suite struct ConcurrentDeletionTests {
    @Test func deletingAnAccountWhileItsLoansAreReturnedNeverFails() async throws {
        let url = try await TestDatabase.create(prefix: "deletion")
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": url, "EXPIRY_INTERVAL": "3600"]))
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            var books: [UUID] = []
            for _ in 0..<6 {
                let book = UUID()
                try await api.license(book, copies: 50)
                books.append(book)
            }
            var patrons: [UUID] = []
            for _ in 0..<8 {
                let patron = try await api.newPatron()
                for book in books { #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: patron).status == .created) }
                patrons.append(patron)
            }
            // The deletion ends the loans in book order; the returns run in the other order, each taking its book's
            // licence before the patron, as every circulation request does.
            let statuses = try await withThrowingTaskGroup(of: (String, HTTPResponse.Status).self) { group in
                for patron in patrons {
                    group.addTask { ("delete", try await api.call(.delete, "/me", patron: patron).status) }
                    for book in books.reversed() {
                        group.addTask { ("return", try await api.call(.post, "/me/books/\(book)/return", patron: patron).status) }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0.0 == "delete" }.allSatisfy { $0.1 == .noContent }, "\(statuses)")
            #expect(statuses.filter { $0.0 == "return" }.allSatisfy { [.ok, .unauthorized].contains($0.1) }, "\(statuses)")
            // Every copy is back: each loan was returned or ended with its account.
            let free = try await TestDatabase.query("SELECT count(*)::text FROM patron_books", on: url)
            #expect(free == ["0"])
        }
    }
}
