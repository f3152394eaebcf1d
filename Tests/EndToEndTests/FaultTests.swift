import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The stack under failure: a crashed catalog, a restarted database, a service stopped under load.
@Suite(.serialized) struct FaultTests {
    @Test func loansKeepWorkingWhileTheCatalogIsDownAndItsRoutesRecover() async throws {
        // A refused replica is skipped for 5 s: long enough that a loaded machine still sees the 503 below.
        try await Stack.run(["REPLICA_DOWN_FOR": "10s"]) { stack in
            let api = stack.gateway
            let first = try await stack.ingest(Stack.corpus[0], copies: 2)
            let second = try await stack.ingest(Stack.corpus[1], copies: 2)
            let (_, token) = try await stack.signUp()
            let ann = GatewayClient.Credentials.bearer(token)
            try await stack.waitForLicence(second, token: token)
            let borrowed = try await api.call(.POST, "/me/books/\(first)/borrow", as: ann)
            #expect(borrowed.status == 201, "\(borrowed.text)")

            await stack.stop(.catalog, signal: SIGKILL)
            for _ in 0..<3 {
                let reply = try await api.call(.GET, "/opds")
                #expect([502, 503].contains(reply.status) && reply.isProblem, "\(reply.status)")
            }
            let skipped = try await api.call(.GET, "/opds/lanes/new")
            #expect(skipped.status == 503, "a replica that refused is skipped: 503 without waiting, not \(skipped.status)")
            #expect(try await api.call(.POST, "/me/books/\(second)/borrow", as: ann).status == 201)
            #expect(try await api.call(.POST, "/me/books/\(first)/return", as: ann).status == 200)
            let shelf = (try await api.call(.GET, "/me/books", as: ann).json["books"] as? [[String: Any]]) ?? []
            #expect(shelf.contains { $0["bookId"] as? String == second && $0["state"] as? String == "not_downloaded" })

            try stack.launch(.catalog)
            try await eventually(timeout: .seconds(40), "catalog routes never recovered") { try await api.call(.GET, "/opds").status == 200 }
            #expect(try await api.call(.GET, "/books/\(second)/fulfill", as: ann).status == 200)
            // The figures patron wrote while catalog was down reach it: one of two copies of `second` is out.
            try await eventually("the outbox never drained into catalog") {
                let feed = try await api.call(.GET, "/opds/books/\(second)").text
                return feed.contains(#"available="1""#) && feed.contains(#"total="2""#)
            }
        }
    }

    @Test func servicesReconnectWhenPostgreSQLRestarts() async throws {
        try await Stack.run { stack in
            let api = stack.gateway
            let book = try await stack.ingest(Stack.corpus[0])
            let (_, token) = try await stack.signUp()
            try await stack.waitForLicence(book, token: token)

            try await stack.stopPostgres()
            let during = try await api.call(.GET, "/me/books/\(book)", as: .bearer(token))
            #expect(during.status >= 500 && during.isProblem, "without a database: \(during.status) \(during.text)")
            #expect(try await api.call(.GET, "/health/ready").status == 503)
            try await stack.startPostgres()

            try await eventually(timeout: .seconds(30), "the services never reconnected") {
                let shelf = try await api.call(.GET, "/me/books/\(book)", as: .bearer(token)).status
                let feed = try await api.call(.GET, "/opds/lanes/new").status
                return shelf == 200 && feed == 200
            }
            #expect(try await api.call(.POST, "/me/books/\(book)/borrow", as: .bearer(token)).status == 201)
            #expect(try await api.call(.GET, "/health/ready").status == 200)
        }
    }

    /// A gateway follows catalog's shelf announcements with a long poll (20 s); catalog's graceful shutdown answers it at
    /// once instead of waiting it out, so a SIGTERM ends catalog well within an orchestrator's grace period (Docker's is
    /// 10 s). It took 17 s before.
    @Test func sigtermEndsACatalogThatAGatewayFollowsWithinSeconds() async throws {
        try await Stack.run { stack in
            let (_, token) = try await stack.signUp()
            #expect(try await stack.gateway.call(.GET, "/opds/lanes/new", as: .bearer(token)).status == 200)
            // The follower's long poll is under way by now: it starts with the gateway and asks again at once.
            try await Task.sleep(for: .seconds(2))
            let started = ContinuousClock.now
            #expect(await stack.stop(.catalog) == 0, "catalog exits cleanly on SIGTERM")
            let took = ContinuousClock.now - started
            #expect(took < .seconds(8), "catalog took \(took) to exit")
        }
    }

    @Test func sigtermLetsRequestsInFlightFinishAndHalfWritesNothing() async throws {
        // A real bcrypt cost keeps each signup in flight long enough for SIGTERM to meet some of them.
        try await Stack.run(["BCRYPT_COST": "10"]) { stack in
            let api = stack.gateway
            let answered = SignupsAnswered()
            let outcomes = try await withThrowingTaskGroup(of: (pin: String, barcode: String?, status: Int, problem: Bool).self) { group in
                for n in 0..<24 {
                    group.addTask {
                        let pin = String(format: "%04d", 1000 + n)
                        let reply = try await api.call(.POST, "/auth/signup", json: #"{"pin": "\#(pin)"}"#)
                        answered.count.add(1, ordering: .relaxed)
                        return (pin, (reply.json["patron"] as? [String: Any])?["barcode"] as? String, reply.status, reply.isProblem)
                    }
                }
                // SIGTERM once the first signup is answered, not after a fixed time (on a loaded machine none had reached
                // patron 150 ms after they were sent): the others, each a bcrypt on patron's cores, are still in flight.
                let deadline = ContinuousClock.now + .seconds(20)
                while answered.count.load(ordering: .relaxed) == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
                let status = await stack.stop(.patron, signal: SIGTERM)
                #expect(status == 0, "patron exits cleanly on SIGTERM")
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let created = outcomes.filter { $0.status == 201 }
            #expect(!created.isEmpty, "some signups were in flight when SIGTERM came")
            for outcome in outcomes where outcome.status != 201 {
                #expect([502, 503, 504].contains(outcome.status) && outcome.problem, "a refused request is a gateway problem: \(outcome.status)")
            }
            try stack.launch(.patron)
            try await stack.waitUntilReady()
            for outcome in created {
                let barcode = try #require(outcome.barcode)
                let login = try await api.call(.POST, "/auth/token", as: .basic(barcode, outcome.pin))
                #expect(login.status == 200, "patron \(barcode) was created whole: \(login.status)")
            }
        }
    }
}

/// How many of the signups `sigtermLetsRequestsInFlightFinishAndHalfWritesNothing` sends have been answered.
final class SignupsAnswered: Sendable {
    let count = Atomic<Int>(0)
}
