import Foundation
import Hummingbird
import HummingbirdTesting
import Shared
import TestSupport
import Testing

@testable import PatronService

@Suite struct ReadingTests {
    @Test func bookmarksArePrivateIdempotentAndValidated() async throws {
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "read")]))
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 2)
            let ann = try await api.newPatron()
            let bob = try await api.newPatron()
            let body = #"{"locator":{"href":"ch1.xhtml","progression":0.25},"chapter":"One","device":"phone"}"#
            #expect(try await api.call(.post, "/me/books/\(book)/bookmarks", patron: ann, json: body).status == .forbidden)
            _ = try await api.call(.post, "/me/books/\(book)/borrow", patron: ann)
            let created = try await api.call(.post, "/me/books/\(book)/bookmarks", patron: ann, json: body)
            #expect(created.status == .created)
            #expect(try await api.call(.post, "/me/books/\(book)/bookmarks", patron: ann, json: body).status == .ok)
            #expect(
                try await api.call(.post, "/me/books/\(book)/bookmarks", patron: ann, json: #"{"locator":{"href":"ch1.xhtml","progression":1.5}}"#)
                    .status == .badRequest
            )
            let id = try #require(created.json["id"] as? String)
            #expect(try await api.call(.delete, "/me/bookmarks/\(id)", patron: bob).status == .notFound)
            let bobs = try await api.call(.get, "/me/books/\(book)/bookmarks", patron: bob).json["bookmarks"] as? [Any]
            #expect(bobs?.isEmpty == true)
            #expect(try await api.call(.delete, "/me/bookmarks/\(id)", patron: ann).status == .noContent)
        }
    }

    @Test func theNewestPositionWinsWhateverTheOrderOfWrites() async throws {
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "pos")]))
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 1, openAccess: true)
            let ann = try await api.newPatron()
            let newer = #"{"locator":{"href":"c2.xhtml","locations":{"progression":0.5}},"timestamp":"2026-01-02T00:00:00Z","device":"tablet"}"#
            let older = #"{"locator":{"href":"c1.xhtml","locations":{"progression":0.1}},"timestamp":"2026-01-01T00:00:00Z","device":"phone"}"#
            #expect(try await api.call(.put, "/me/books/\(book)/position", patron: ann, json: newer).status == .ok)
            let stale = try await api.call(.put, "/me/books/\(book)/position", patron: ann, json: older)
            #expect(stale.status == .conflict)
            #expect(stale.json["device"] as? String == "tablet")
            let current = try await api.call(.get, "/me/books/\(book)/position", patron: ann)
            #expect((current.json["locator"] as? [String: Any])?["href"] as? String == "c2.xhtml")
        }
    }

    @Test func feedbackIsValidatedAndListedForOperatorsOnly() async throws {
        let app = try await buildPatronApplication(
            config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "fb"), "FEEDBACK_PER_HOUR": "2"])
        )
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let from: HTTPFields = [.clientAddress: "10.0.0.9"]
            #expect(try await api.call(.post, "/feedback", json: #"{"message":""}"#, headers: from).status == .badRequest)
            #expect(try await api.call(.post, "/feedback", json: #"{"message":"hi","email":"nope"}"#, headers: from).status == .badRequest)
            #expect(try await api.call(.post, "/feedback", json: #"{"message":"hi","kind":"odd"}"#, headers: from).status == .badRequest)
            #expect(try await api.call(.post, "/feedback", json: #"{"message":"Great app"}"#, headers: from).status == .created)
            #expect(try await api.call(.post, "/feedback", json: #"{"message":"Again"}"#, headers: from).status == .created)
            #expect(try await api.call(.post, "/feedback", json: #"{"message":"Third"}"#, headers: from).status == .tooManyRequests)
            #expect(try await api.call(.get, "/admin/feedback").status == .unauthorized)
            let list = try await api.call(.get, "/admin/feedback", headers: [.authorization: "Bearer \(TestConfig.adminToken)"])
            #expect((list.json["feedback"] as? [Any])?.count == 2)
        }
    }

    @Test func theExportHoldsEverythingOfThePatronAndNothingOfAnother() async throws {
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "exp")]))
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let (mine, theirs) = (UUID(), UUID())
            try await api.license(mine, copies: 2)
            try await api.license(theirs, copies: 2)
            let ann = try await api.newPatron()
            let bob = try await api.newPatron()
            for (patron, book) in [(ann, mine), (bob, theirs)] {
                _ = try await api.call(.post, "/me/books/\(book)/borrow", patron: patron)
                _ = try await api.call(
                    .post,
                    "/me/books/\(book)/bookmarks",
                    patron: patron,
                    json: #"{"locator":{"href":"c1.xhtml","progression":0.3}}"#
                )
                _ = try await api.call(
                    .put,
                    "/me/books/\(book)/position",
                    patron: patron,
                    json: #"{"locator":{"href":"c1.xhtml","locations":{"progression":0.4}},"timestamp":"2026-11-01T00:00:00Z","device":"d"}"#
                )
                _ = try await api.call(.put, "/me/books/\(book)/rating", patron: patron, json: #"{"stars":5}"#)
                _ = try await api.call(.put, "/me/favorites/\(book)", patron: patron)
                _ = try await api.call(
                    .post,
                    "/feedback",
                    patron: patron,
                    json: #"{"message":"from \#(patron)"}"#,
                    headers: [.clientAddress: "10.1.1.1"]
                )
            }
            let export = try await api.call(.get, "/me/export", patron: ann)
            #expect(export.status == .ok)
            let json = export.json
            let text = String(decoding: export.body, as: UTF8.self).lowercased()
            #expect(!text.contains(theirs.uuidString.lowercased()) && !text.contains(bob.uuidString.lowercased()), "nothing of Bob's")
            #expect(text.contains(mine.uuidString.lowercased()))
            #expect((json["profile"] as? [String: Any]) != nil && (json["books"] as? [Any])?.count == 1)
            #expect((json["loanHistory"] as? [Any])?.count == 1 && (json["bookmarks"] as? [Any])?.count == 1)
            #expect((json["positions"] as? [String: Any])?.count == 1 && (json["ratings"] as? [String: Int])?[mine.uuidString.lowercased()] == 5)
            #expect((json["favorites"] as? [Any])?.count == 1 && (json["feedback"] as? [Any])?.count == 1)
        }
    }

    /// The export describes a patron's books exactly as `/me/books` does (it used rules with zero periods and no
    /// public URL: a hold's wait came out as "about 1 minutes", 0 seconds, with relative cover URLs).
    @Test func theExportShowsBooksAsTheShelfDoes() async throws {
        let app = try await buildPatronApplication(
            config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "expbooks")])
        )
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let (lent, waited) = (UUID(), UUID())
            try await api.license(lent, copies: 1)
            try await api.license(waited, copies: 1)
            let (ann, bob) = (try await api.newPatron(), try await api.newPatron())
            _ = try await api.call(.post, "/me/books/\(lent)/borrow", patron: ann)
            _ = try await api.call(.post, "/me/books/\(waited)/borrow", patron: bob)
            #expect(try await api.call(.post, "/me/books/\(waited)/hold", patron: ann).status == .created)
            let shelf = try #require(try await api.call(.get, "/me/books", patron: ann).json["books"] as? [[String: Any]])
            let exported = try #require(try await api.call(.get, "/me/export", patron: ann).json["books"] as? [[String: Any]])
            #expect(shelf.count == 2 && exported.count == 2)
            for book in shelf {
                let same = try #require(exported.first { $0["bookId"] as? String == book["bookId"] as? String })
                for key in ["state", "dueAt", "estimatedWait", "estimatedWaitSeconds", "coverUrl", "thumbnailUrl"] {
                    #expect("\(same[key] ?? "none")" == "\(book[key] ?? "none")", "\(key)")
                }
            }
            let hold = try #require(exported.first { $0["bookId"] as? String == waited.uuidString.lowercased() })
            #expect((hold["estimatedWaitSeconds"] as? Int ?? 0) > 0)
        }
    }
}
