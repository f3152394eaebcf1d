import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import PostgresSupport
import Shared
import Testing
import TestSupport

@testable import PatronService

@Suite struct CirculationTests {
    func app(_ overrides: [String: String] = [:]) async throws -> (some ApplicationProtocol, String) {
        let url = try await TestDatabase.create(prefix: "circ")
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": url, "EXPIRY_INTERVAL": "3600"].merging(overrides) { $1 }))
        return (app, url)
    }

    /// With one replica, then with two replicas of the service sharing the database.
    @Test(arguments: [1, 2]) func twoHundredSimultaneousBorrowersShareThreeCopies(replicas: Int) async throws {
        let (app, url) = try await app()
        let second = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": url, "EXPIRY_INTERVAL": "3600"]))
        try await app.test(.router) { first in
            try await second.test(.router) { other in
                let apis = [PatronTestClient(client: first), PatronTestClient(client: other)].prefix(replicas)
                let book = UUID()
                try await apis[0].license(book, copies: 3)
                var patrons: [UUID] = []
                for _ in 0..<200 { patrons.append(try await apis[0].newPatron()) }
                let statuses = try await withThrowingTaskGroup(of: (HTTPResponse.Status, String?).self) { group in
                    for (n, patron) in patrons.enumerated() {
                        group.addTask {
                            let reply = try await apis[n % replicas].call(.post, "/me/books/\(book)/borrow", patron: patron)
                            return (reply.status, reply.json["type"] as? String)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(statuses.filter { $0.0 == .created }.count == 3)
                let refused = statuses.filter { $0.0 == .conflict }
                #expect(refused.count == 197)
                #expect(refused.allSatisfy { $0.1 == Problem.typeBase + "no-copies-available" })
            }
        }
    }

    @Test func theHoldQueueIsServedInOrderThroughDeclines() async throws {
        let (app, _) = try await app()
        try await app.test(.router) { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 1)
            let owner = try await api.newPatron()
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: owner).status == .created)
            var queue: [UUID] = []
            for _ in 0..<5 { queue.append(try await api.newPatron()) }
            for patron in queue { #expect(try await api.call(.post, "/me/books/\(book)/hold", patron: patron).status == .created) }
            let third = try await api.call(.get, "/me/books/\(book)", patron: queue[2]).decode(BookStatus.self)
            #expect(third.state == .waitingForLoan && third.holdPosition == 3 && third.estimatedWait == "about 9 weeks")
            #expect(try await api.call(.post, "/me/books/\(book)/return", patron: owner).status == .ok)
            for (index, patron) in queue.enumerated() {
                let status = try await api.call(.get, "/me/books/\(book)", patron: patron).decode(BookStatus.self)
                #expect(status.state == (index == 0 ? .loanOffered : .waitingForLoan))
                if index > 0 { #expect(status.holdPosition == index) }
            }
            #expect(try await api.call(.post, "/me/books/\(book)/decline", patron: queue[0]).status == .ok)
            let second = try await api.call(.get, "/me/books/\(book)", patron: queue[1]).decode(BookStatus.self)
            #expect(second.state == .loanOffered)
            #expect(try await api.call(.post, "/me/books/\(book)/accept", patron: queue[1]).status == .ok)
            let notifications = try await api.call(.get, "/me/notifications", patron: queue[1])
            #expect((notifications.json["unread"] as? Int ?? 0) >= 1)
        }
    }

    @Test func anIllegalEventIsRefusedWithTheStateAndChangesNothing() async throws {
        let (app, _) = try await app()
        try await app.test(.router) { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 2)
            let patron = try await api.newPatron()
            let refused = try await api.call(.post, "/me/books/\(book)/return", patron: patron)
            #expect(refused.status == .conflict)
            #expect(refused.json["state"] as? String == "none")
            #expect(Set(refused.json["allowedEvents"] as? [String] ?? []) == ["save", "hold", "borrow"])
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: patron).status == .created)
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: patron).status == .ok)
            #expect(try await api.call(.post, "/me/books/\(book)/events", patron: patron, json: #"{"event":"opened"}"#).status == .conflict)
            let started = try await api.call(.post, "/me/books/\(book)/events", patron: patron, json: #"{"event":"download_started"}"#)
            #expect(started.status == .ok, "\(String(decoding: started.body, as: UTF8.self))")
            #expect(try await api.call(.post, "/me/books/\(book)/events", patron: patron, json: #"{"event":"borrow"}"#).status == .badRequest)
            let state = try await api.call(.get, "/me/books/\(book)", patron: patron).decode(BookStatus.self)
            #expect(state.state == .downloading)
            #expect(try await api.call(.post, "/me/books/\(UUID())/borrow", patron: patron).status == .notFound)
            #expect(try await api.call(.post, "/me/books/not-a-uuid/borrow", patron: patron).status == .badRequest)
        }
    }

    @Test func loanLimitIsA403ThatSaysTheLimit() async throws {
        let (app, _) = try await app(["LOAN_LIMIT": "1"])
        try await app.test(.router) { client in
            let api = PatronTestClient(client: client)
            let (first, second) = (UUID(), UUID())
            try await api.license(first, copies: 1)
            try await api.license(second, copies: 1)
            let patron = try await api.newPatron()
            #expect(try await api.call(.post, "/me/books/\(first)/borrow", patron: patron).status == .created)
            let refused = try await api.call(.post, "/me/books/\(second)/borrow", patron: patron)
            #expect(refused.status == .forbidden)
            #expect(refused.json["limit"] as? Int == 1)
        }
    }

    @Test func expiredLoansAndOffersMoveTheQueueOnceEvenWithTwoJobs() async throws {
        let (app, url) = try await app(["LOAN_PERIOD": "1s", "HOLD_OFFER_PERIOD": "1s"])
        try await app.test(.router) { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            try await api.license(book, copies: 1)
            let (owner, first, second) = (try await api.newPatron(), try await api.newPatron(), try await api.newPatron())
            _ = try await api.call(.post, "/me/books/\(book)/borrow", patron: owner)
            _ = try await api.call(.post, "/me/books/\(book)/hold", patron: first)
            _ = try await api.call(.post, "/me/books/\(book)/hold", patron: second)
            try await Task.sleep(for: .milliseconds(1200))
            let logger = Logger(label: "test")
            let postgres = PostgresClient(configuration: try DatabaseURL.configuration(url), backgroundLogger: logger)
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await postgres.run() }
                let rules = CirculationRules(loanPeriod: 1, offerPeriod: 1, publicURL: "")
                let job = ExpiryJob(client: postgres, circulation: .init(client: postgres, rules: rules), interval: 1, logger: logger)
                async let a = job.runOnce()
                async let b = job.runOnce()
                let applied = try await a + b
                #expect(applied == 1)
                #expect(try await api.call(.get, "/me/books/\(book)", patron: owner).decode(BookStatus.self).state == .loanExpired)
                #expect(try await api.call(.get, "/me/books/\(book)", patron: first).decode(BookStatus.self).state == .loanOffered)
                try await Task.sleep(for: .milliseconds(1200))
                _ = try await job.runOnce()
                #expect(try await api.call(.get, "/me/books/\(book)", patron: first).decode(BookStatus.self).state == .loanOfferExpired)
                #expect(try await api.call(.get, "/me/books/\(book)", patron: second).decode(BookStatus.self).state == .loanOffered)
                group.cancelAll()
            }
        }
    }
}
