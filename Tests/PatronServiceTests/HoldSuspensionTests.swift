import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import PostgresSupport
import Shared
import TestSupport
import Testing

@testable import PatronService

/// A patron suspends a hold until a date: it keeps its place, offers pass it over for the next active patron in
/// strict queue order, and it is active again when resumed or by itself once the date has passed.
@Suite struct HoldSuspensionTests {
    func apps(_ overrides: [String: String] = [:]) async throws -> (some ApplicationProtocol, some ApplicationProtocol, String) {
        let url = try await TestDatabase.create(prefix: "suspend")
        let config = TestConfig.base(["PATRON_DATABASE_URL": url, "EXPIRY_INTERVAL": "3600"].merging(overrides) { $1 })
        return (try await buildPatronApplication(config: config), try await buildPatronApplication(config: config), url)
    }

    func status(_ api: PatronTestClient, _ book: UUID, _ patron: UUID) async throws -> BookStatus {
        try await api.call(.get, "/me/books/\(book)", patron: patron).decode(BookStatus.self)
    }

    /// A one-copy book that one patron has on loan and another holds.
    func lentAndHeld(_ api: PatronTestClient) async throws -> (book: UUID, owner: UUID, waiting: UUID) {
        let book = UUID()
        try await api.license(book, copies: 1)
        let (owner, waiting) = (try await api.newPatron(), try await api.newPatron())
        #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: owner).status == .created)
        #expect(try await api.call(.post, "/me/books/\(book)/hold", patron: waiting).status == .created)
        return (book, owner, waiting)
    }

    static let tomorrow = WireFormat.formatDate(Date().addingTimeInterval(86_400))

    @Test func aSuspendedHoldIsPassedOverInQueueOrderAndKeepsItsPlace() async throws {
        let (app, second, _) = try await apps()
        try await app.testRouter { first in
            try await second.testRouter { other in
                let (api, replica) = (PatronTestClient(client: first), PatronTestClient(client: other))
                let book = UUID()
                try await api.license(book, copies: 1)
                let owner = try await api.newPatron()
                #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: owner).status == .created)
                var queue: [UUID] = []
                for _ in 0..<3 {
                    let patron = try await api.newPatron()
                    #expect(try await api.call(.post, "/me/books/\(book)/hold", patron: patron).status == .created)
                    queue.append(patron)
                }
                let before = try await status(api, book, queue[0])
                #expect(!before.allowedEvents.contains("resume") && before.allowedEvents.contains("suspend"))

                // The first in line suspends (through the other replica): same place, a wait of at least the suspension.
                let suspended = try await replica.call(.post, "/me/books/\(book)/suspend", patron: queue[0], json: #"{"until": "\#(Self.tomorrow)"}"#)
                #expect(suspended.status == .ok)
                let held = try suspended.decode(BookStatus.self)
                #expect(held.state == .waitingForLoan && held.holdPosition == 1 && held.suspendedUntil != nil)
                #expect(held.allowedEvents.contains("resume") && held.allowedEvents.contains("cancel_hold"))
                #expect((held.estimatedWaitSeconds ?? 0) >= 86_000)
                // The second waits one round: the suspended hold ahead is passed over.
                let next = try await status(api, book, queue[1])
                #expect(next.holdPosition == 2 && next.suspendedUntil == nil && next.estimatedWaitSeconds == before.estimatedWaitSeconds)

                // The copy comes back: the next active patron gets the offer, the suspended one keeps place 1.
                #expect(try await api.call(.post, "/me/books/\(book)/return", patron: owner).status == .ok)
                #expect(try await status(api, book, queue[1]).state == .loanOffered)
                let kept = try await status(replica, book, queue[0])
                #expect(kept.state == .waitingForLoan && kept.holdPosition == 1)
                #expect(try await status(api, book, queue[2]).holdPosition == 2)

                // Resumed while the copy is offered: nothing to offer yet; the next copy back goes to the first in line.
                let resumed = try await replica.call(.post, "/me/books/\(book)/resume", patron: queue[0]).decode(BookStatus.self)
                #expect(resumed.state == .waitingForLoan && resumed.suspendedUntil == nil && !resumed.allowedEvents.contains("resume"))
                #expect(try await api.call(.post, "/me/books/\(book)/decline", patron: queue[1]).status == .ok)
                #expect(try await status(api, book, queue[0]).state == .loanOffered)
                #expect(try await status(api, book, queue[2]).state == .waitingForLoan)
            }
        }
    }

    @Test func aSuspensionEndsByItselfOnceItsDateHasPassedOnceWithTwoJobs() async throws {
        let (app, _, url) = try await apps()
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let (book, owner, waiting) = try await lentAndHeld(api)
            #expect(try await api.call(.post, "/me/books/\(book)/suspend", patron: waiting, json: #"{"until": "\#(Self.tomorrow)"}"#).status == .ok)
            // The only hold is suspended: the returned copy stays free.
            #expect(try await api.call(.post, "/me/books/\(book)/return", patron: owner).status == .ok)
            #expect(try await status(api, book, waiting).state == .waitingForLoan)

            let logger = Logger(label: "test")
            let postgres = PostgresClient(configuration: try DatabaseURL.configuration(url), backgroundLogger: logger)
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await postgres.run() }
                try await postgres.query("UPDATE patron_books SET suspended_until = now() - interval '1 second' WHERE patron_id = \(waiting)")
                let rules = CirculationRules(loanPeriod: 3600, offerPeriod: 3600, publicURL: "")
                let job = ExpiryJob.forTests(postgres, rules: rules, logger: logger)
                // Two replicas' jobs at the same moment: the hold wakes once and is offered the free copy once.
                async let a = job.runOnce()
                async let b = job.runOnce()
                #expect(try await a + b == 1)
                let woken = try await status(api, book, waiting)
                #expect(woken.state == .loanOffered && woken.suspendedUntil == nil)
                var counts: [String: Int] = [:]
                for try await (kind, count) in try await postgres.query(
                    "SELECT kind, count(*)::int FROM notifications WHERE patron_id = \(waiting) GROUP BY kind"
                ).decode((String, Int).self) { counts[kind] = count }
                #expect(counts["loan_offered"] == 1 && counts["hold_resumed"] == 1, "told once that the hold is back, once of the offer: \(counts)")
                group.cancelAll()
            }
        }
    }

    @Test func badSuspensionsAreRefusedAndChangeNothing() async throws {
        let (app, _, _) = try await apps()
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let (book, owner, waiting) = try await lentAndHeld(api)
            for body in [#"{}"#, #"{"until": "soon"}"#, #"{"until": "2001-01-01"}"#, #"{"until": "2999-01-01"}"#, "not json"] {
                let reply = try await api.call(.post, "/me/books/\(book)/suspend", patron: waiting, json: body)
                #expect(reply.status == .badRequest, "\(body)")
                #expect(reply.headers[.contentType] == "application/problem+json")
            }
            #expect(try await status(api, book, waiting).suspendedUntil == nil)
            // Only a hold can be suspended or resumed: a loan cannot, and the answer lists what the state allows.
            let refused = try await api.call(.post, "/me/books/\(book)/suspend", patron: owner, json: #"{"until": "\#(Self.tomorrow)"}"#)
            #expect(refused.status == .conflict)
            #expect((refused.json["allowedEvents"] as? [String] ?? []).contains("return"))
            #expect(try await api.call(.post, "/me/books/\(book)/resume", patron: owner).status == .conflict)
            #expect(try await api.call(.post, "/me/books/\(UUID())/resume", patron: owner).status == .notFound)
            #expect(try await api.call(.post, "/me/books/\(book)/suspend", json: #"{"until": "\#(Self.tomorrow)"}"#).status == .unauthorized)
        }
    }
}
