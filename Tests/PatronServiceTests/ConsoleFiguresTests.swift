import Foundation
import Hummingbird
import HummingbirdTesting
import Shared
import TestSupport
import Testing

@testable import PatronService

/// What the web app and the operator console ask of patron beyond the OPDS apps' routes.
@Suite struct ConsoleFiguresTests {
    @Test func aPatronSeesTheirOwnHiddenBooksNewestFirstAndNobodyElses() async throws {
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "hid")]))
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let (first, second) = (UUID(), UUID())
            try await api.license(first, copies: 1)
            try await api.license(second, copies: 1)
            let ann = try await api.newPatron()
            let bob = try await api.newPatron()
            #expect(try await api.call(.get, "/me/ignored").status == .unauthorized)
            #expect(try await api.call(.put, "/me/books/\(first)/ignored", patron: ann).status.code < 300)
            #expect(try await api.call(.put, "/me/books/\(second)/ignored", patron: ann).status.code < 300)
            let hidden = try await api.call(.get, "/me/ignored", patron: ann)
            #expect(hidden.status == .ok && hidden.headers[.cacheControl] == "private, no-store")
            let books = try #require(hidden.json["books"] as? [[String: Any]])
            #expect(books.compactMap { $0["bookId"] as? String } == [second, first].map { $0.uuidString.lowercased() })
            #expect(books.allSatisfy { $0["title"] is String && $0["ignoredAt"] is String })
            #expect((try await api.call(.get, "/me/ignored", patron: bob).json["books"] as? [Any])?.isEmpty == true)
            #expect(try await api.call(.delete, "/me/books/\(second)/ignored", patron: ann).status.code < 300)
            #expect((try await api.call(.get, "/me/ignored", patron: ann).json["books"] as? [Any])?.count == 1)
        }
    }

    @Test func circulationFiguresCountLoansHoldsAndOffersForTheAdminTokenOnly() async throws {
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "fig")]))
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 1)
            let (ann, bob, cy) = (try await api.newPatron(), try await api.newPatron(), try await api.newPatron())
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: ann).status == .created)
            #expect(try await api.call(.post, "/me/books/\(book)/hold", patron: bob).status == .created)
            #expect(try await api.call(.post, "/me/books/\(book)/hold", patron: cy).status == .created)
            #expect(try await api.call(.post, "/me/books/\(book)/return", patron: ann).status == .ok)
            #expect(try await api.call(.get, "/admin/circulation").status == .unauthorized)
            #expect(try await api.call(.get, "/admin/circulation", headers: [.authorization: "Bearer not-the-token"]).status == .unauthorized)
            let figures = try await api.call(.get, "/admin/circulation", headers: [.authorization: "Bearer \(TestConfig.adminToken)"])
            #expect(figures.status == .ok)
            #expect(figures.json["patrons"] as? Int == 3)
            #expect(figures.json["loans"] as? Int == 0)
            #expect(figures.json["offers"] as? Int == 1, "the returned copy is offered to the first hold")
            #expect(figures.json["holds"] as? Int == 1)
            #expect(figures.json["loansToday"] as? Int == 1, "the returned loan counts: it was taken today")
        }
    }
}
