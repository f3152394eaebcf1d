import Foundation
import Hummingbird
import HummingbirdTesting
import Shared
import TestSupport
import Testing

@testable import PatronService

/// What patron tells catalog for related books and recommendations: co-borrowing counted over at least three
/// patrons, and a patron's liked and had books. Ids only; the service token is required.
@Suite struct TasteTests {
    @Test func coBorrowingNeedsThreePatronsAndTasteListsLikedAndHadBooks() async throws {
        let url = try await TestDatabase.create(prefix: "taste")
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": url, "EXPIRY_INTERVAL": "3600"]))
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let (anchor, thrice, twice, favourite, rated, disliked) = (UUID(), UUID(), UUID(), UUID(), UUID(), UUID())
            for book in [anchor, thrice, twice, favourite, rated, disliked] { try await api.license(book, copies: 5) }
            var patrons: [UUID] = []
            for _ in 0..<3 { patrons.append(try await api.newPatron()) }
            func borrowAndReturn(_ book: UUID, _ patron: UUID) async throws {
                #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: patron).status == .created)
                #expect(try await api.call(.post, "/me/books/\(book)/return", patron: patron).status == .ok)
            }
            for (n, patron) in patrons.enumerated() {
                try await borrowAndReturn(anchor, patron)
                try await borrowAndReturn(thrice, patron)
                if n < 2 { try await borrowAndReturn(twice, patron) }
            }
            // The same patron borrowing twice counts once.
            try await borrowAndReturn(twice, patrons[0])
            let coBorrowed = try await api.call(.get, "/internal/books/\(anchor)/co-borrowed").decode(CoBorrowedBooks.self)
            #expect(coBorrowed.books == [thrice], "three patrons: shown; two: not")
            #expect(try await api.call(.get, "/internal/books/\(twice)/co-borrowed").decode(CoBorrowedBooks.self).books.isEmpty)
            let anonymous = try await client.execute(uri: "/internal/books/\(anchor)/co-borrowed", method: .get) { $0.status }
            #expect(anonymous == .unauthorized)

            let reader = patrons[0]
            #expect(try await api.call(.put, "/me/favorites/\(favourite)", patron: reader).status.code < 300)
            #expect(try await api.call(.put, "/me/books/\(rated)/rating", patron: reader, json: #"{"stars": 4}"#).status == .ok)
            #expect(try await api.call(.put, "/me/books/\(disliked)/rating", patron: reader, json: #"{"stars": 2}"#).status == .ok)
            let taste = try await api.call(.get, "/internal/patrons/\(reader)/taste").decode(PatronTaste.self)
            #expect(taste.liked.first == favourite, "favourites first")
            #expect(Set(taste.liked) == [favourite, rated, anchor, thrice, twice], "good ratings and loans; not a poor rating")
            #expect(Set(taste.had) == [anchor, thrice, twice])
            #expect(taste.coBorrowed.isEmpty, "co-borrowed with what they liked, but not what they had")
        }
    }
}
