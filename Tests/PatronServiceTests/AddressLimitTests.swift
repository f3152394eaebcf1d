import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Shared
import TestSupport
import Testing

@testable import PatronService

/// The limits kept per client address: an IPv6 client counts by its /64 (it may pick any address in it), and a patron
/// who signed up from an address has signed in from it.
@Suite struct AddressLimitTests {
    func basic(_ login: String, _ secret: String) -> HTTPFields {
        [.authorization: "Basic " + Data("\(login):\(secret)".utf8).base64EncodedString()]
    }

    func from(_ address: String, _ fields: HTTPFields = [:]) -> HTTPFields {
        var fields = fields
        fields[.clientAddress] = address
        return fields
    }

    @Test func signUpsAndFeedbackFromOneIPv6NetworkCountTogether() async throws {
        let app = try await buildPatronApplication(
            config: TestConfig.base([
                "PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "v6limits"), "SIGNUPS_PER_HOUR": "3", "FEEDBACK_PER_HOUR": "2",
            ])
        )
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            var statuses: [HTTPResponse.Status] = []
            for host in 1...4 {
                statuses.append(try await api.call(.post, "/auth/signup", json: #"{"pin":"1234"}"#, headers: from("2001:db8:1:2::\(host)")).status)
            }
            #expect(statuses == [.created, .created, .created, .tooManyRequests], "\(statuses)")
            #expect(try await api.call(.post, "/auth/signup", json: #"{"pin":"1234"}"#, headers: from("2001:db8:1:3::1")).status == .created)

            var feedback: [HTTPResponse.Status] = []
            for host in 1...3 {
                feedback.append(
                    try await api.call(.post, "/feedback", json: #"{"message":"Hello \#(host)"}"#, headers: from("2001:db8:7:7::\(host)")).status
                )
            }
            #expect(feedback.last == .tooManyRequests && feedback.dropLast().allSatisfy { $0.code < 300 }, "\(feedback)")
        }
    }

    @Test func guessesFromOneIPv6NetworkAreOneAddressAndNewPatronsThereStillSignIn() async throws {
        let app = try await buildPatronApplication(
            config: TestConfig.base([
                "PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "spraysignup"), "SIGN_IN_ADDRESS_FREE_FAILURES": "5",
                "SIGN_IN_FIRST_BACK_OFF": "10m",
            ])
        )
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            // Five patrons sign up at the branch's network, and nowhere else.
            var cards: [String] = []
            for host in 1...5 {
                let reply = try await api.call(.post, "/auth/signup", json: #"{"pin":"2580"}"#, headers: from("2001:db8:5:5::\(host)"))
                cards.append(try #require((reply.json["patron"] as? [String: Any])?["barcode"] as? String))
            }
            // Guesses at unknown cards from other addresses of the same /64: the network is slowed after its free failures.
            var guesses: [HTTPResponse.Status] = []
            for index in 0..<12 {
                let login = String(format: "2%013d", 7_000 + index)
                guesses.append(try await api.call(.post, "/auth/token", headers: from("2001:db8:5:5::a:\(index)", basic(login, "1234"))).status)
            }
            #expect(guesses.prefix(5).allSatisfy { $0 == .unauthorized } && guesses.suffix(5).allSatisfy { $0 == .tooManyRequests }, "\(guesses)")
            // Those who signed up there are the network's own patrons: they sign in, from any address of it.
            for (index, card) in cards.enumerated() {
                let reply = try await api.call(.post, "/auth/token", headers: from("2001:db8:5:5::b:\(index)", basic(card, "2580")))
                #expect(reply.status == .ok, "\(card): \(reply.status)")
            }
        }
    }
}
