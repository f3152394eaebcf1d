import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Shared
import TestSupport
import Testing

@testable import PatronService

/// Limits counted against rows that parallel requests change hold under concurrency, with two replicas too.
@Suite struct ConcurrentLimitTests {
    @Test func parallelBorrowsAndHoldsNeverPassTheirLimits() async throws {
        let url = try await TestDatabase.create(prefix: "limits")
        let config = TestConfig.base(["PATRON_DATABASE_URL": url, "EXPIRY_INTERVAL": "3600", "LOAN_LIMIT": "10", "HOLD_LIMIT": "5"])
        let first = try await buildPatronApplication(config: config)
        let second = try await buildPatronApplication(config: config)
        try await first.testRouter { one in
            try await second.testRouter { two in
                let apis = [PatronTestClient(client: one), PatronTestClient(client: two)]
                let patron = try await apis[0].newPatron()
                var lendable: [UUID] = []
                var lent: [UUID] = []
                for _ in 0..<30 {
                    let book = UUID()
                    try await apis[0].license(book, copies: 1)
                    lendable.append(book)
                    let other = UUID()
                    try await apis[0].license(other, copies: 0)
                    lent.append(other)
                }
                func run(_ books: [UUID], _ action: String) async throws -> [HTTPResponse.Status] {
                    try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                        for (n, book) in books.enumerated() {
                            group.addTask { try await apis[n % 2].call(.post, "/me/books/\(book)/\(action)", patron: patron).status }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                }
                let borrows = try await run(lendable, "borrow")
                #expect(borrows.filter { $0 == .created || $0 == .ok }.count == 10, "\(borrows)")
                let holds = try await run(lent, "hold")
                #expect(holds.filter { $0 == .created || $0 == .ok }.count == 5, "\(holds)")
                // One more of each is refused: the limits were reached, not skipped.
                let extra = UUID()
                try await apis[0].license(extra, copies: 1)
                #expect(try await apis[1].call(.post, "/me/books/\(extra)/borrow", patron: patron).status == .forbidden)
            }
        }
    }

    @Test func parallelFeedbackFromOneAddressStopsAtTheHourlyLimit() async throws {
        let app = try await buildPatronApplication(
            config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "fblimit"), "FEEDBACK_PER_HOUR": "20"])
        )
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for n in 0..<60 {
                    group.addTask {
                        try await api.call(.post, "/feedback", json: #"{"message":"note \#(n)"}"#, headers: [.clientAddress: "198.51.100.3"]).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 20, "\(statuses)")
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 40)
        }
    }

    @Test func parallelSignUpsFromOneAddressStopAtTheHourlyLimit() async throws {
        let app = try await buildPatronApplication(
            config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "signups"), "SIGNUPS_PER_HOUR": "4"])
        )
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        try await api.call(.post, "/auth/signup", json: #"{"pin":"1234"}"#, headers: [.clientAddress: "198.51.100.8"]).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 4, "\(statuses)")
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 8)
            let elsewhere = try await api.call(.post, "/auth/signup", json: #"{"pin":"1234"}"#, headers: [.clientAddress: "198.51.100.9"])
            #expect(elsewhere.status == .created, "another address is not limited")
        }
    }

    @Test func savedAndIgnoredBooksHaveACapThatHoldsUnderConcurrency() async throws {
        let app = try await buildPatronApplication(
            config: TestConfig.base([
                "PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "caps"), "SAVED_LIMIT": "5", "IGNORED_LIMIT": "3",
                "EXPIRY_INTERVAL": "3600",
            ])
        )
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let patron = try await api.newPatron()
            var books: [UUID] = []
            for _ in 0..<20 {
                let book = UUID()
                try await api.license(book, copies: 1)
                books.append(book)
            }
            func run(_ method: HTTPRequest.Method, _ suffix: String, _ ids: ArraySlice<UUID>) async throws -> [HTTPResponse.Status] {
                try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                    for book in ids { group.addTask { try await api.call(method, "/me/books/\(book)/\(suffix)", patron: patron).status } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            let saved = try await run(.put, "saved", books[0..<10])
            #expect(saved.filter { $0.code < 300 }.count == 5, "\(saved)")
            #expect(saved.filter { $0 == .forbidden }.count == 5)
            let ignored = try await run(.put, "ignored", books[10..<20])
            #expect(ignored.filter { $0.code < 300 }.count == 3, "\(ignored)")
            #expect(ignored.filter { $0 == .forbidden }.count == 7)
        }
    }

    @Test func bookmarksHaveACapThatHoldsUnderConcurrency() async throws {
        let app = try await buildPatronApplication(
            config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "bmcap"), "BOOKMARK_LIMIT": "5"])
        )
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let patron = try await api.newPatron()
            let book = UUID()
            try await api.license(book, copies: 0, openAccess: true)
            func bookmark(_ place: Int) -> String { #"{"locator":{"href":"c1.xhtml","progression":0.\#(place)}}"# }
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for place in 10..<30 {
                    group.addTask { try await api.call(.post, "/me/books/\(book)/bookmarks", patron: patron, json: bookmark(place)).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 5, "\(statuses)")
            #expect(statuses.filter { $0 == .forbidden }.count == 15)
            let kept = try #require(try await api.call(.get, "/me/books/\(book)/bookmarks", patron: patron).json["bookmarks"] as? [[String: Any]])
            #expect(kept.count == 5)
            // At the cap, a place bookmarked already is still answered with its bookmark; a new one says why not.
            let again = try #require(((kept.first?["locator"] as? [String: Any])?["locations"] as? [String: Any])?["progression"] as? Double)
            let same = #"{"locator":{"href":"c1.xhtml","progression":\#(again)}}"#
            #expect(try await api.call(.post, "/me/books/\(book)/bookmarks", patron: patron, json: same).status == .ok)
            let refused = try await api.call(.post, "/me/books/\(book)/bookmarks", patron: patron, json: bookmark(99))
            #expect(refused.status == .forbidden)
            #expect(refused.json["type"] as? String == Problem.typeBase + "bookmark-limit-reached")
            #expect(refused.json["limit"] as? Int == 5)
        }
    }
}
