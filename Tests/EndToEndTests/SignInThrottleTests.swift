import Foundation
import TestSupport
import Testing

/// Sign-in throttling through the real gateway: a guessing client slows down what it guesses at, never the patrons
/// who share its address, and the address it is judged by is the one trusted proxies report (`TRUSTED_PROXIES`).
@Suite(.serialized) struct SignInThrottleEndToEndTests {
    /// Password spraying: one wrong PIN for each of 200 logins from one address. The address is slowed after its free
    /// failures and then refused, while the 20 patrons who signed in from it before keep getting in, with HTTP Basic and
    /// for tokens; a card never used there waits like the guesses do (docs/SECURITY.md, "Sign-in throttling").
    @Test func sprayingFromOneAddressIsSlowedWhileItsOwnPatronsStillSignIn() async throws {
        // A first back-off of 10 minutes: a loaded machine may take longer than the default 30 s between the last
        // checked guess and the checks after it.
        try await Stack.run(["TRUSTED_PROXIES": "127.0.0.0/8", "SIGN_IN_FIRST_BACK_OFF": "10m"]) { stack in
            let api = stack.gateway
            let shared = [("X-Forwarded-For", "198.51.100.77")]
            // Cards made elsewhere (so that sign-up's own limits play no part), each used once behind the shared address.
            var patrons: [String] = []
            for index in 0..<21 {
                let reply = try await api.call(
                    .POST,
                    "/auth/signup",
                    json: #"{"pin": "2580"}"#,
                    headers: [("X-Forwarded-For", "192.0.2.\(index + 1)")]
                )
                guard reply.status == 201, let barcode = (reply.json["patron"] as? [String: Any])?["barcode"] as? String else {
                    throw StackError("signup failed: \(reply.status) \(reply.text)")
                }
                patrons.append(barcode)
            }
            let newcomer = patrons.removeLast()
            for barcode in patrons {
                #expect(try await api.call(.POST, "/auth/token", as: .basic(barcode, "2580"), headers: shared).status == 200)
            }
            let guesses = try await withThrowingTaskGroup(of: [Int].self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        var statuses: [Int] = []
                        for index in 0..<50 {
                            let login = String(format: "2%013d", worker * 1_000 + index)
                            statuses.append(try await api.call(.GET, "/me", as: .basic(login, "1234"), headers: shared).status)
                        }
                        return statuses
                    }
                }
                return try await group.reduce(into: [Int]()) { $0 += $1 }
            }
            let checked = guesses.filter { $0 == 401 }.count
            #expect(guesses.count == 200 && guesses.allSatisfy { $0 == 401 || $0 == 429 }, "\(Set(guesses))")
            #expect(checked >= 20 && checked <= 24, "guesses checked before the address was slowed: \(checked)")
            let refusal = try await api.call(.GET, "/me", as: .basic("29999999999999", "1234"), headers: shared)
            #expect(refusal.status == 429 && refusal.json["throttled"] as? String == "address")
            #expect(Int(refusal.headers.first(name: "retry-after") ?? "") ?? 0 > 0, "says when to try again")
            for barcode in patrons {
                let basic = try await api.call(.GET, "/me", as: .basic(barcode, "2580"), headers: shared).status
                let token = try await api.call(.POST, "/auth/token", as: .basic(barcode, "2580"), headers: shared).status
                #expect(basic == 200 && token == 200, "\(barcode), who signed in here before: \(basic)/\(token)")
            }
            let stranger = try await api.call(.POST, "/auth/token", as: .basic(newcomer, "2580"), headers: shared)
            #expect(stranger.status == 429, "a card new to the spraying address waits")
            #expect(
                try await api.call(.POST, "/auth/token", as: .basic(newcomer, "2580"), headers: [("X-Forwarded-For", "203.0.113.40")]).status == 200
            )
        }
    }

    @Test func aPinGuessedFromManyAddressesSlowsTheGuesserNotThePatron() async throws {
        try await Stack.run(["TRUSTED_PROXIES": "127.0.0.0/8"]) { stack in
            let api = stack.gateway
            let (barcode, _) = try await stack.signUp(pin: "1470")
            let home = [("X-Forwarded-For", "192.0.2.44")]
            #expect(try await api.call(.POST, "/auth/token", as: .basic(barcode, "1470"), headers: home).status == 200)
            var statuses: [Int] = []
            for index in 0..<30 {
                let from = [("X-Forwarded-For", "203.0.113.\(index + 1)")]
                statuses.append(try await api.call(.POST, "/auth/token", as: .basic(barcode, String(format: "%04d", index)), headers: from).status)
            }
            #expect(statuses.filter { $0 == 429 }.count >= 15, "the guesser is slowed down: \(statuses)")
            let guessedRight = try await api.call(.POST, "/auth/token", as: .basic(barcode, "1470"), headers: [("X-Forwarded-For", "203.0.113.99")])
            #expect(guessedRight.status == 429, "even the right PIN waits from an address the patron never used")
            #expect(guessedRight.json["throttled"] as? String == "login")
            #expect(try await api.call(.POST, "/auth/token", as: .basic(barcode, "1470"), headers: home).status == 200)
            try await Task.sleep(for: .milliseconds(1_100))  // past BASIC_AUTH_CACHE_TTL
            #expect(try await api.call(.GET, "/me", as: .basic(barcode, "1470"), headers: home).status == 200)
        }
    }

    @Test func forwardedAddressesCountOnlyWhenTheProxyIsTrusted() async throws {
        for trusted in [false, true] {
            try await Stack.run(trusted ? ["TRUSTED_PROXIES": "127.0.0.1/32,::1"] : [:]) { stack in
                let api = stack.gateway
                let (barcode, _) = try await stack.signUp(pin: "3690")
                for index in 0..<5 {
                    let reply = try await api.call(
                        .POST,
                        "/auth/token",
                        as: .basic(barcode, "0000"),
                        headers: [("X-Forwarded-For", "198.51.100.\(index + 1)")]
                    )
                    #expect(reply.status == 401)
                }
                // Untrusted: every guess came from 127.0.0.1 whatever the header said, so that pair now waits.
                // Trusted: the guesses came from five addresses, none of which reached its pair's limit.
                let other = try await api.call(.POST, "/auth/token", as: .basic(barcode, "3690"), headers: [("X-Forwarded-For", "198.51.100.200")])
                #expect(other.status == (trusted ? 200 : 429), "trusted: \(trusted)")
                if trusted {
                    for _ in 0..<5 {
                        _ = try await api.call(.POST, "/auth/token", as: .basic(barcode, "0000"), headers: [("X-Forwarded-For", "198.51.100.1")])
                    }
                    let pair = try await api.call(.POST, "/auth/token", as: .basic(barcode, "3690"), headers: [("X-Forwarded-For", "198.51.100.1")])
                    #expect(pair.status == 429 && pair.json["throttled"] as? String == "login-at-address", "the forwarded address is throttled")
                }
            }
        }
    }
}
