import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Shared
import TestSupport
import Testing

@testable import PatronService

/// A patron's email address: claiming one tells nothing of other accounts and blocks nobody; it becomes the account's
/// own only when its link is followed, which is where a conflict is told, to whoever holds the mailbox; changes are
/// limited per patron and per address.
@Suite struct EmailChangeTests {
    static func app(_ prefix: String, _ extra: [String: String] = [:]) async throws -> some ApplicationProtocol {
        try await buildPatronApplication(
            config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: prefix)].merging(extra) { $1 })
        )
    }

    /// A card-and-PIN patron (`name` only tells the test's patrons apart).
    func signUp(_ api: PatronTestClient, _ name: String, email: String?) async throws -> UUID {
        let mail = email.map { #", "email": "\#($0)""# } ?? ""
        let reply = try await api.call(.post, "/auth/signup", json: #"{"pin": "1234"\#(mail)}"#)
        guard reply.status == .created, let id = ((reply.json["patron"] as? [String: Any])?["id"] as? String).flatMap(UUID.init(uuidString:)) else {
            throw TestFailure("signup: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        }
        return id
    }

    func confirm(_ api: PatronTestClient, _ patron: UUID, _ address: String) async throws -> PatronTestClient.Reply {
        let token = MailToken.Signer(secret: TestConfig.jwtSecret).sign(.verify(patron: patron, address: address))
        return try await api.call(.post, "/mail/verify?token=\(token)")
    }

    @Test func anUnconfirmedClaimBlocksNobodyAndTellsNothing() async throws {
        try await Self.app("emailclaim").testRouter { client in
            let api = PatronTestClient(client: client)
            let mallory = try await signUp(api, "mallory", email: nil)
            // Mallory claims an address nobody has, then one somebody has: the same answer.
            #expect(try await api.call(.patch, "/me", patron: mallory, json: #"{"email": "nobody@example.org"}"#).status == .ok)
            let owner = try await signUp(api, "owner", email: "owner@example.org")
            let claimed = try await api.call(.patch, "/me", patron: mallory, json: #"{"email": "Owner@example.org"}"#)
            #expect(claimed.status == .ok, "\(claimed.status)")
            #expect(claimed.json["email"] as? String == "Owner@example.org")
            // The owner confirms; Mallory's link, had she the mailbox, would now be refused.
            #expect(try await confirm(api, owner, "owner@example.org").status == .ok)
            let late = try await confirm(api, mallory, "Owner@example.org")
            #expect(late.status == .conflict && late.json["type"] as? String != nil)
            // A confirmed address is the owner's: a new sign-up with it is told so (sign-up's documented choice).
            let again = try await api.call(.post, "/auth/signup", json: #"{"pin": "1234", "email": "OWNER@example.org"}"#)
            #expect(again.status == .conflict)
            // Mallory's claim of it still answers as any other.
            #expect(try await api.call(.patch, "/me", patron: mallory, json: #"{"email": "owner@example.org"}"#).status == .ok)

            // Somebody else claimed an address first: its owner still signs up with it.
            #expect(try await api.call(.patch, "/me", patron: mallory, json: #"{"email": "late.owner@example.org"}"#).status == .ok)
            let lateOwner = try await signUp(api, "lateowner", email: "late.owner@example.org")
            #expect(try await confirm(api, lateOwner, "late.owner@example.org").status == .ok)
        }
    }

    @Test func changesOfAddressAreLimitedPerPatronAndPerAddress() async throws {
        try await Self.app("emaillimits", ["EMAIL_CHANGES_PER_DAY": "3", "EMAIL_VERIFICATIONS_PER_ADDRESS": "2"]).testRouter { client in
            let api = PatronTestClient(client: client)
            let ann = try await signUp(api, "ann", email: nil)
            var statuses: [HTTPResponse.Status] = []
            for n in 1...4 {
                statuses.append(try await api.call(.patch, "/me", patron: ann, json: #"{"email": "ann\#(n)@example.org"}"#).status)
            }
            #expect(statuses == [.ok, .ok, .ok, .tooManyRequests], "\(statuses)")
            // Other edits go on; the same address again is no change.
            #expect(try await api.call(.patch, "/me", patron: ann, json: #"{"displayName": "Ann", "email": "ann3@example.org"}"#).status == .ok)

            // One address, from several accounts: its owner's mailbox gets at most two confirmations a day.
            var toVictim: [HTTPResponse.Status] = []
            for n in 1...3 {
                let patron = try await signUp(api, "p\(n)", email: nil)
                toVictim.append(try await api.call(.patch, "/me", patron: patron, json: #"{"email": "victim@example.org"}"#).status)
            }
            #expect(toVictim == [.ok, .ok, .tooManyRequests], "\(toVictim)")
        }
    }
}
