import Foundation
import Hummingbird
import HummingbirdTesting
import Shared
import TestSupport
import Testing

@testable import PatronService

/// What patron tells catalog for related books and recommendations: co-borrowing counted over at least five
/// established patrons, and a patron's liked and had books. Ids only; the service token is required.
@Suite struct TasteTests {
    @Test func coBorrowingNeedsFiveEstablishedPatronsAndTasteListsLikedAndHadBooks() async throws {
        let url = try await TestDatabase.create(prefix: "taste")
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": url, "EXPIRY_INTERVAL": "3600"]))
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let (anchor, often, fourTimes, favourite, rated, disliked) = (UUID(), UUID(), UUID(), UUID(), UUID(), UUID())
            for book in [anchor, often, fourTimes, favourite, rated, disliked] { try await api.license(book, copies: 5) }
            var patrons: [UUID] = []
            for _ in 0..<5 { patrons.append(try await api.newPatron()) }
            func borrowAndReturn(_ book: UUID, _ patron: UUID) async throws {
                #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: patron).status == .created)
                #expect(try await api.call(.post, "/me/books/\(book)/return", patron: patron).status == .ok)
            }
            for (n, patron) in patrons.enumerated() {
                try await borrowAndReturn(anchor, patron)
                try await borrowAndReturn(often, patron)
                if n < 4 { try await borrowAndReturn(fourTimes, patron) }
            }
            // The same patron borrowing twice counts once.
            try await borrowAndReturn(fourTimes, patrons[0])
            #expect(
                try await api.call(.get, "/internal/books/\(anchor)/co-borrowed").decode(CoBorrowedBooks.self).books.isEmpty,
                "accounts of today are not counted"
            )
            try await TestDatabase.execute("UPDATE patrons SET created_at = now() - interval '31 days'", on: url)
            let coBorrowed = try await api.call(.get, "/internal/books/\(anchor)/co-borrowed").decode(CoBorrowedBooks.self)
            #expect(coBorrowed.books == [often], "five established patrons: shown; four: not")
            #expect(try await api.call(.get, "/internal/books/\(fourTimes)/co-borrowed").decode(CoBorrowedBooks.self).books.isEmpty)
            let anonymous = try await client.execute(uri: "/internal/books/\(anchor)/co-borrowed", method: .get) { $0.status }
            #expect(anonymous == .unauthorized)

            let reader = patrons[0]
            #expect(try await api.call(.put, "/me/favorites/\(favourite)", patron: reader).status.code < 300)
            #expect(try await api.call(.put, "/me/books/\(rated)/rating", patron: reader, json: #"{"stars": 4}"#).status == .ok)
            #expect(try await api.call(.put, "/me/books/\(disliked)/rating", patron: reader, json: #"{"stars": 2}"#).status == .ok)
            let taste = try await api.call(.get, "/internal/patrons/\(reader)/taste").decode(PatronTaste.self)
            #expect(taste.liked.first == favourite, "favourites first")
            #expect(Set(taste.liked) == [favourite, rated, anchor, often, fourTimes], "good ratings and loans; not a poor rating")
            #expect(Set(taste.had) == [anchor, often, fourTimes])
            #expect(taste.coBorrowed.isEmpty, "co-borrowed with what they liked, but not what they had")
        }
    }

    /// The attack the rule is for: a patron is the only one to borrow a rare book; two accounts made for the purpose
    /// borrow it and every other book. Without the rule, "patrons who borrowed this also borrowed" would list exactly
    /// the victim's other loans (each at three borrowers, every other book at two).
    @Test func twoMadeUpAccountsCannotShowOnePatronsLoans() async throws {
        let url = try await TestDatabase.create(prefix: "taste")
        for age in ["0s", "30d"] {
            let app = try await buildPatronApplication(
                config: TestConfig.base(["PATRON_DATABASE_URL": url, "EXPIRY_INTERVAL": "3600", "CO_BORROWING_ACCOUNT_AGE": age])
            )
            try await app.testRouter { client in
                let api = PatronTestClient(client: client)
                let rare = UUID()
                let victimsLoans = [UUID(), UUID()]
                let others = [UUID(), UUID(), UUID()]
                for book in [rare] + victimsLoans + others { try await api.license(book, copies: 5) }
                let victim = try await api.newPatron()
                // The victim is an established patron.
                try await TestDatabase.execute("UPDATE patrons SET created_at = now() - interval '400 days' WHERE id = '\(victim)'", on: url)
                for book in [rare] + victimsLoans {
                    #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: victim).status == .created)
                    #expect(try await api.call(.post, "/me/books/\(book)/return", patron: victim).status == .ok)
                }
                for _ in 0..<2 {
                    let sybil = try await api.newPatron()
                    for book in [rare] + victimsLoans + others {
                        #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: sybil).status == .created)
                        #expect(try await api.call(.post, "/me/books/\(book)/return", patron: sybil).status == .ok)
                    }
                }
                let related = try await api.call(.get, "/internal/books/\(rare)/co-borrowed").decode(CoBorrowedBooks.self).books
                #expect(related.isEmpty, "account age \(age): the rare book's related books show \(related)")
            }
        }
    }
}
