import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Shared
import TestSupport
import Testing

@testable import PatronService

/// The rules of `SignInThrottlePolicy`, without a database.
@Suite struct SignInThrottlePolicyTests {
    let policy = SignInThrottlePolicy()
    let now = Date(timeIntervalSince1970: 2_000_000_000)

    func record(_ failures: Int, ago: TimeInterval = 0, window: TimeInterval = 0) -> SignInThrottlePolicy.Record {
        .init(failures: failures, lastFailureAt: now.addingTimeInterval(-ago), windowStartedAt: now.addingTimeInterval(-window))
    }

    @Test func aPairBacksOffAfterItsFreeFailuresDoublingUpToTheLongest() {
        #expect(policy.decide(login: nil, pair: record(4), address: nil, addressIsKnown: false, now: now) == .check)
        #expect(policy.decide(login: nil, pair: record(5), address: nil, addressIsKnown: true, now: now) == .refuse(.loginAtAddress, until: now + 30))
        #expect(policy.backOff(record(6), freeFailures: 5, now: now) == now + 60)
        #expect(policy.backOff(record(40), freeFailures: 5, now: now) == now + 900)
        #expect(policy.backOff(record(5, ago: 31), freeFailures: 5, now: now) == nil, "the back-off has run out")
    }

    @Test func aLockedLoginStillChecksAddressesItSignedInFrom() {
        let login = record(10)
        #expect(policy.decide(login: login, pair: nil, address: nil, addressIsKnown: false, now: now) == .refuse(.login, until: now + 30))
        #expect(policy.decide(login: login, pair: nil, address: nil, addressIsKnown: true, now: now) == .check)
        #expect(
            policy.decide(login: record(10, ago: 86_401), pair: nil, address: nil, addressIsKnown: false, now: now) == .check,
            "forgotten after a day"
        )
    }

    @Test func aSprayingAddressBacksOffForLoginsNewToItOnly() {
        #expect(policy.decide(login: nil, pair: nil, address: record(19, window: 60), addressIsKnown: false, now: now) == .check)
        #expect(
            policy.decide(login: nil, pair: nil, address: record(20, window: 60), addressIsKnown: false, now: now)
                == .refuse(.address, until: now + 30)
        )
        #expect(
            policy.decide(login: nil, pair: nil, address: record(22, window: 60), addressIsKnown: false, now: now)
                == .refuse(.address, until: now + 120)
        )
        #expect(
            policy.decide(login: nil, pair: nil, address: record(22, window: 60), addressIsKnown: true, now: now) == .check,
            "a patron of that address"
        )
        #expect(
            policy.decide(login: nil, pair: nil, address: record(40, ago: 900, window: 601), addressIsKnown: false, now: now) == .check,
            "window over"
        )
    }

    @Test func anAddressPastItsLimitKeepsCheckingLoginsItHasNotFailedOn() {
        let busy = record(100, window: 60)
        #expect(policy.decide(login: nil, pair: nil, address: busy, addressIsKnown: true, now: now) == .check)
        #expect(policy.decide(login: nil, pair: record(1), address: busy, addressIsKnown: true, now: now) == .refuse(.address, until: now + 540))
        #expect(policy.decide(login: nil, pair: record(1), address: record(99, window: 60), addressIsKnown: true, now: now) == .check)
        #expect(
            policy.decide(login: nil, pair: record(1), address: record(500, ago: 901, window: 901), addressIsKnown: false, now: now) == .check,
            "window over"
        )
    }

    @Test func failuresCountUpAndRestartAfterQuiet() {
        #expect(policy.failing(nil, isAddress: false, now: now).failures == 1)
        #expect(policy.failing(record(3, ago: 10), isAddress: false, now: now).failures == 4)
        #expect(policy.failing(record(3, ago: 86_401), isAddress: false, now: now).failures == 1)
        #expect(policy.failing(record(50, window: 300), isAddress: true, now: now) == record(51, window: 300))
        #expect(policy.failing(record(50, window: 601), isAddress: true, now: now) == record(1))
    }
}

/// Sign-in throttling through the patron router, with the client address the gateway vouches for.
@Suite struct SignInThrottleTests {
    func app(_ overrides: [String: String] = [:]) async throws -> some ApplicationProtocol {
        try await buildPatronApplication(
            config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "patron")].merging(overrides) { $1 })
        )
    }

    func attempt(_ api: PatronTestClient, _ login: String, _ secret: String, from address: String) async throws -> PatronTestClient.Reply {
        try await api.call(
            .post,
            "/auth/token",
            headers: [.authorization: "Basic " + Data("\(login):\(secret)".utf8).base64EncodedString(), .clientAddress: address]
        )
    }

    func barcode(_ api: PatronTestClient, pin: String) async throws -> String {
        let card = try await api.call(.post, "/auth/signup", json: #"{"pin":"\#(pin)"}"#)
        return try #require((card.json["patron"] as? [String: Any])?["barcode"] as? String)
    }

    @Test func aGuessingAddressDoesNotLockOutThePatronsWhoShareIt() async throws {
        try await app(["SIGN_IN_ADDRESS_FAILURES": "20"]).testRouter { client in
            let api = PatronTestClient(client: client)
            var patrons: [String] = []
            for _ in 0..<5 { patrons.append(try await barcode(api, pin: "2468")) }
            let shared = "198.51.100.50"
            // The address's own patrons signed in from it before the guessing began.
            for patron in patrons { #expect(try await attempt(api, patron, "2468", from: shared).status == .ok) }
            let newcomer = try await barcode(api, pin: "1357")
            var guessed: [String] = []
            for index in 0..<60 {
                let login = String(format: "2%013d", index * 7919)
                guessed.append(login)
                _ = try await attempt(api, login, "0000", from: shared)
            }
            for patron in patrons {
                #expect(try await attempt(api, patron, "2468", from: shared).status == .ok, "a correct PIN from the busy address")
            }
            let again = try await attempt(api, guessed[0], "0000", from: shared)
            #expect(again.status == .tooManyRequests)
            #expect(again.json["throttled"] as? String == "address")
            // A login new to the address waits while it sprays, even with the right PIN; from its own address it signs in.
            let sprayed = try await attempt(api, newcomer, "1357", from: shared)
            #expect(sprayed.status == .tooManyRequests && sprayed.json["throttled"] as? String == "address")
            #expect(try await attempt(api, newcomer, "1357", from: "203.0.113.8").status == .ok)
        }
    }

    @Test func aLoginGuessedFromManyAddressesStillSignsInFromItsOwn() async throws {
        try await app().testRouter { client in
            let api = PatronTestClient(client: client)
            let patron = try await barcode(api, pin: "1357")
            #expect(try await attempt(api, patron, "1357", from: "192.0.2.10").status == .ok, "home, remembered")
            for index in 0..<12 { _ = try await attempt(api, patron, "0000", from: "203.0.113.\(index + 1)") }
            let elsewhere = try await attempt(api, patron, "1357", from: "203.0.113.200")
            #expect(elsewhere.status == .tooManyRequests)
            #expect(elsewhere.json["throttled"] as? String == "login")
            #expect(try await attempt(api, patron, "1357", from: "192.0.2.10").status == .ok, "home still signs in")
        }
    }

    @Test func oneAddressGuessingOneLoginWaitsAndOthersDoNot() async throws {
        try await app().testRouter { client in
            let api = PatronTestClient(client: client)
            let patron = try await barcode(api, pin: "9753")
            for _ in 0..<5 { #expect(try await attempt(api, patron, "0000", from: "198.51.100.9").status == .unauthorized) }
            let refused = try await attempt(api, patron, "9753", from: "198.51.100.9")
            #expect(refused.status == .tooManyRequests)
            #expect(refused.json["throttled"] as? String == "login-at-address")
            #expect(try await attempt(api, patron, "9753", from: "198.51.100.10").status == .ok)
        }
    }

    @Test func parallelGuessesFromManyAddressesCannotPassTheLoginLimit() async throws {
        // A back-off that outlasts the test however slow the machine: with 30 s, a loaded run let an eleventh guess be checked.
        try await app(["SIGN_IN_FIRST_BACK_OFF": "1h"]).testRouter { client in
            let api = PatronTestClient(client: client)
            let patron = try await barcode(api, pin: "8642")
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for index in 0..<40 { group.addTask { try await attempt(api, patron, "0000", from: "203.0.113.\(index + 1)").status } }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .unauthorized }.count <= 10, "\(statuses)")
            #expect(statuses.allSatisfy { $0 == .unauthorized || $0 == .tooManyRequests })
        }
    }
}
