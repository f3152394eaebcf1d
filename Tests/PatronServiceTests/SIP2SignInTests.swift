import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Shared
import TestSupport
import Testing

@testable import PatronService

/// Signing in with the library's own cards: patron against PostgreSQL and a real SIP2 server on loopback
/// (`SIP2TestServer`, pysip2's): the ILS decides; its patron gets a local row (name, address, type); its blocks stop
/// borrowing with its words; a wrong PIN counts toward the throttle; the ILS away answers 503 except for a card it
/// accepted within the grace period, and everything works again once it is back; with local accounts off there is no
/// sign-up, and the PIN is the ILS's to change.
@Suite(.serialized) struct SIP2SignInTests {
    func basic(_ card: (String, String), pin: String? = nil) -> HTTPFields {
        [.authorization: "Basic " + Data("\(card.0):\(pin ?? card.1)".utf8).base64EncodedString(), .clientAddress: "198.51.100.7"]
    }

    func app(_ ils: SIP2TestServer, _ extra: [String: String] = [:]) async throws -> some ApplicationProtocol {
        let database = try await TestDatabase.create(prefix: "sip2")
        return try await buildPatronApplication(
            config: TestConfig.base(ils.configuration.merging(extra) { $1 }.merging(["PATRON_DATABASE_URL": database]) { $1 })
        )
    }

    @Test func theILSDecidesAndItsPatronGetsARowOfTheirOwn() async throws {
        let ils = SIP2TestServer()
        try await ils.start()
        defer { Task { await ils.stop() } }
        try await app(ils).testRouter { client in
            let api = PatronTestClient(client: client)
            let first = try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.valid))
            #expect(first.status == .ok, "\(String(decoding: first.body, as: UTF8.self))")
            let patron = try #require(
                UUID(
                    uuidString: try await api.call(.post, "/internal/auth/basic", json: credentials(SIP2TestServer.valid)).json["patronId"] as? String
                        ?? ""
                )
            )
            let me = try await api.call(.get, "/me", patron: patron)
            #expect(me.json["barcode"] as? String == SIP2TestServer.valid.0)
            #expect(me.json["displayName"] as? String == "Ada Lovelace" && me.json["email"] as? String == "ada@example.org")
            #expect(try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.valid)).status == .ok, "the same patron again")

            // A wrong PIN and an unknown card are 401s, the same problem; the throttle counts wrong PINs.
            let wrong = try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.teen, pin: "0000"))
            #expect(wrong.status == .unauthorized && (wrong.json["type"] as? String)?.hasSuffix("invalid-credentials") == true)
            #expect(try await api.call(.post, "/auth/token", headers: basic(("23339999999999", "1234"))).status == .unauthorized)
            for _ in 0..<4 {
                #expect(try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.teen, pin: "0000")).status == .unauthorized)
            }
            let throttled = try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.teen))
            #expect(throttled.status == .tooManyRequests, "five wrong PINs: the right one waits too")

            // Blocked by the ILS: signed in, keeps what they have, borrows nothing, told why in the ILS's words.
            let book = UUID()
            try await api.license(book, copies: 2)
            #expect(try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.blockedForFines)).status == .ok)
            let blocked = try #require(try await patronID(api, SIP2TestServer.blockedForFines))
            let refused = try await api.call(.post, "/me/books/\(book)/borrow", patron: blocked)
            #expect(refused.status == .forbidden && (refused.json["type"] as? String)?.hasSuffix("patron-blocked") == true)
            #expect((refused.json["detail"] as? String)?.contains("Fines over the limit: 25.00") == true, "\(refused.json)")
            #expect(try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.expired)).status == .ok)
            let expired = try #require(try await patronID(api, SIP2TestServer.expired))
            let refusedExpired = try await api.call(.post, "/me/books/\(book)/borrow", patron: expired)
            #expect((refusedExpired.json["detail"] as? String)?.contains("Card expired") == true)
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: patron).status == .created)

            // Local accounts are on too: a local sign-up still signs in with its own PIN.
            let local = try await api.call(.post, "/auth/signup", json: #"{"pin": "8642"}"#)
            let barcode = try #require((local.json["patron"] as? [String: Any])?["barcode"] as? String)
            #expect(try await api.call(.post, "/auth/token", headers: basic((barcode, "8642"))).status == .ok)
            #expect(try await api.call(.put, "/me/password", patron: patron, json: #"{"current":"1234","new":"5678"}"#).status == .conflict)
        }
        // One connection, logged in once, carried every question (they came one after another).
        #expect(ils.output.components(separatedBy: "93 login").count - 1 == 1, "\(ils.output)")
    }

    @Test func theILSAwayAnswers503ExceptForARecentCardAndItAllWorksOnceItIsBack() async throws {
        let ils = SIP2TestServer()
        try await ils.start()
        defer { Task { await ils.stop() } }
        try await app(ils).testRouter { client in
            let api = PatronTestClient(client: client)
            #expect(try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.valid)).status == .ok)
            await ils.stop()
            let away = try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.child))
            #expect(away.status == .serviceUnavailable && away.headers[.retryAfter] != nil, "a card never seen: nobody can say")
            #expect((away.json["type"] as? String)?.hasSuffix("ils-unavailable") == true)
            #expect(try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.valid)).status == .ok, "accepted a moment ago")
            #expect(
                try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.valid, pin: "9999")).status == .serviceUnavailable,
                "a PIN the ILS never accepted is not let in"
            )
            try await ils.start()
            // The kept connections died with the server: new ones are opened, logged in, and asked.
            #expect(try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.child)).status == .ok)
            #expect(try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.valid)).status == .ok)
        }
    }

    @Test func withLocalAccountsOffThereIsNoSignUpAndThePINIsTheILSs() async throws {
        let ils = SIP2TestServer()
        try await ils.start()
        defer { Task { await ils.stop() } }
        let admin: HTTPFields = [.authorization: "Bearer \(TestConfig.adminToken)", .contentType: "application/json"]
        try await app(ils, ["PATRON_AUTH": "sip2", "SIP2_OFFLINE_GRACE": "0"]).testRouter { client in
            let api = PatronTestClient(client: client)
            let signup = try await api.call(.post, "/auth/signup", json: #"{"pin": "8642"}"#)
            #expect(signup.status == .forbidden && (signup.json["type"] as? String)?.hasSuffix("sign-up-off") == true)
            let document = try await api.call(.get, "/auth/document")
            #expect(!String(decoding: document.body, as: UTF8.self).contains("\"register\""), "the document offers no sign-up")
            #expect(try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.valid)).status == .ok)
            let patron = try #require(try await patronID(api, SIP2TestServer.valid))
            let change = try await api.call(.put, "/me/password", patron: patron, json: #"{"current":"1234","new":"5678"}"#)
            #expect(change.status == .conflict && (change.json["type"] as? String)?.hasSuffix("pin-held-by-ils") == true)
            let reset = try await api.call(.post, "/admin/patrons/\(patron)/secret", json: #"{"pin": "5678"}"#, headers: admin)
            #expect(reset.status == .conflict)
            await ils.stop()
            #expect(try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.valid)).status == .serviceUnavailable, "no grace")
        }
    }

    @Test func patronTypesComeFromTheILSOrStaffAndBringTheirLimits() async throws {
        let ils = SIP2TestServer()
        try await ils.start()
        defer { Task { await ils.stop() } }
        let admin: HTTPFields = [.authorization: "Bearer \(TestConfig.adminToken)", .contentType: "application/json"]
        try await app(ils, ["PATRON_TYPE_LIMITS": "child=1:0,teen=2:2", "LOAN_LIMIT": "5"]).testRouter { client in
            let api = PatronTestClient(client: client)
            let books = [UUID(), UUID()]
            for book in books { try await api.license(book, copies: 3, audience: .children) }
            let forAdults = UUID()
            try await api.license(forAdults, copies: 3, audience: .adult)
            // The ILS says `child` (its `PC` field): a child's limits.
            #expect(try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.child)).status == .ok)
            let child = try #require(try await patronID(api, SIP2TestServer.child))
            let me = try await api.call(.get, "/me", patron: child)
            #expect(me.json["patronType"] as? String == "child")
            #expect((me.json["loans"] as? [String: Any])?["limit"] as? Int == 1 && (me.json["holds"] as? [String: Any])?["limit"] as? Int == 0)
            #expect(try await api.call(.post, "/me/books/\(books[0])/borrow", patron: child).status == .created)
            let second = try await api.call(.post, "/me/books/\(books[1])/borrow", patron: child)
            #expect(second.status == .forbidden && (second.json["type"] as? String)?.hasSuffix("loan-limit-reached") == true, "one loan at once")
            // A child's card borrows only books for children.
            let adults = try await api.call(.post, "/me/books/\(forAdults)/borrow", patron: child)
            #expect(adults.status == .forbidden && (adults.json["type"] as? String)?.hasSuffix("not-for-this-card") == true)

            // Staff make a local patron a teen: a teen's limits; an unknown type is a 400 and changes nothing.
            let local = try await api.newPatron()
            #expect(try await api.call(.get, "/me", patron: local).json["patronType"] as? String == "adult")
            #expect(try await api.call(.put, "/admin/patrons/\(local)/type", json: #"{"type": "toddler"}"#, headers: admin).status == .badRequest)
            let set = try await api.call(.put, "/admin/patrons/\(local)/type", json: #"{"type": "teen"}"#, headers: admin)
            #expect(set.status == .ok && (set.json["patron"] as? [String: Any])?["patronType"] as? String == "teen", "\(set.json)")
            #expect((try await api.call(.get, "/me", patron: local).json["loans"] as? [String: Any])?["limit"] as? Int == 2)
            #expect(try await api.call(.put, "/admin/patrons/\(UUID())/type", json: #"{"type": "teen"}"#, headers: admin).status == .notFound)
            // The ILS has the last word on its own patrons: staff's type lasts until the next sign-in names one.
            #expect(try await api.call(.put, "/admin/patrons/\(child)/type", json: #"{"type": "adult"}"#, headers: admin).status == .ok)
            #expect(try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.child)).status == .ok)
            #expect(try await api.call(.get, "/me", patron: child).json["patronType"] as? String == "child")
        }
    }

    @Test func anILSBehindTLSIsReachedWithItsCertificateTrustedAndNotOtherwise() async throws {
        let certificate = try await SIP2TestServer.selfSignedCertificate()
        let ils = SIP2TestServer(tls: certificate)
        try await ils.start()
        defer { Task { await ils.stop() } }
        for host in ["127.0.0.1", "localhost"] {
            let trusted = ["SIP2_TLS": "true", "SIP2_TLS_CA_FILE": certificate.certificate.path, "SIP2_HOST": host]
            try await app(ils, trusted).testRouter { client in
                let reply = try await PatronTestClient(client: client).call(.post, "/auth/token", headers: basic(SIP2TestServer.valid))
                #expect(reply.status == .ok, "\(host): \(String(decoding: reply.body, as: UTF8.self))")
            }
        }
        // The system's roots do not know the ILS's certificate: no PIN goes to a server that cannot prove who it is.
        let asked = ils.output.components(separatedBy: "valid PIN").count
        try await app(ils, ["SIP2_TLS": "true", "SIP2_OFFLINE_GRACE": "0"]).testRouter { client in
            let reply = try await PatronTestClient(client: client).call(.post, "/auth/token", headers: basic(SIP2TestServer.valid))
            #expect(reply.status == .serviceUnavailable)
        }
        #expect(ils.output.components(separatedBy: "valid PIN").count == asked, "the untrusted connection asked nothing")
        // Plain SIP2 to a TLS port gets no answer it can read.
        try await app(ils, ["SIP2_TIMEOUT": "1"]).testRouter { client in
            let reply = try await PatronTestClient(client: client).call(.post, "/auth/token", headers: basic(SIP2TestServer.valid))
            #expect(reply.status == .serviceUnavailable)
        }
    }

    @Test func anILSWithoutPatronInformationIsAskedForPatronStatus() async throws {
        let ils = SIP2TestServer()
        try await ils.start()
        defer { Task { await ils.stop() } }
        try await app(ils, ["SIP2_MESSAGE": "patron-status", "SIP2_CHECKSUMS": "false"]).testRouter { client in
            let api = PatronTestClient(client: client)
            #expect(try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.valid)).status == .ok)
            #expect(try await api.call(.post, "/auth/token", headers: basic(SIP2TestServer.teen, pin: "0000")).status == .unauthorized)
            let blocked = try await api.call(.post, "/internal/auth/basic", json: credentials(SIP2TestServer.blockedForFines))
            #expect(blocked.status == .ok)
        }
        #expect(ils.output.contains("23 patron 23330000000001: valid PIN") && !ils.output.contains("63 patron"), "asked with 23 only")
    }

    @Test func patronTypeRulesReadTheirConfiguration() throws {
        let rules = try PatronTypeRules(names: "Juvenile=child, YA=teen", limits: "child=3:1", defaultLimits: (10, 10))
        #expect(rules.type(named: "JUVENILE") == .child && rules.type(named: "ya") == .teen && rules.type(named: "teen") == .teen)
        #expect(rules.type(named: "staff") == .adult && rules.type(named: nil) == .adult)
        #expect(rules.limits(for: .child) == (3, 1) && rules.limits(for: .teen) == (10, 10))
        #expect(throws: (any Error).self) { try PatronTypeRules(names: "j=kid", limits: nil, defaultLimits: (1, 1)) }
        #expect(throws: (any Error).self) { try PatronTypeRules(names: nil, limits: "child=3", defaultLimits: (1, 1)) }
    }

    private func credentials(_ card: (String, String)) -> String { #"{"login": "\#(card.0)", "secret": "\#(card.1)"}"# }

    private func patronID(_ api: PatronTestClient, _ card: (String, String)) async throws -> UUID? {
        UUID(uuidString: try await api.call(.post, "/internal/auth/basic", json: credentials(card)).json["patronId"] as? String ?? "")
    }
}
