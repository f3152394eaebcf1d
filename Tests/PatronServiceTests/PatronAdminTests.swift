import Foundation
import Hummingbird
import HummingbirdTesting
import ServiceSupport
import Shared
import TestSupport
import Testing

@testable import PatronService

/// The console's patrons and announcements (`PatronAdminController`, `AnnouncementController`) against PostgreSQL, with
/// two named admin tokens: find a patron by the start of their card number, block them (they keep their loan, cannot
/// borrow or hold), unblock, a new PIN from staff (the old one refused, sessions ended), a loan ended for them (the
/// next patron gets the offer), each in the audit with the token's name; announcements in the auth document while current.
@Suite struct PatronAdminTests {
    static let tokens = "ana:ana-token-0123456789,ben:ben-token-0123456789"

    @Test func staffFindBlockResetAndEndLoansForAPatronAndEveryActionIsAudited() async throws {
        let config = TestConfig.base([
            "PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "staff"), "ADMIN_TOKENS": Self.tokens,
        ])
        let app = try await buildPatronApplication(config: config)
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let ana: HTTPFields = [.authorization: "Bearer ana-token-0123456789", .contentType: "application/json"]
            let ben: HTTPFields = [.authorization: "Bearer ben-token-0123456789", .contentType: "application/json"]
            let (book, other) = (UUID(), UUID())
            try await api.license(book, copies: 1)
            try await api.license(other, copies: 1)
            let signup = try await api.call(.post, "/auth/signup", json: #"{"pin": "1234", "email": "Reader.One@example.org"}"#)
            let patron = try #require((signup.json["patron"] as? [String: Any])?["id"] as? String).flatMap { UUID(uuidString: $0) }
            let reader = try #require(patron)
            let barcode = try #require((signup.json["patron"] as? [String: Any])?["barcode"] as? String)
            let next = try await api.newPatron()

            // Found by the start of the card number and of the email, any case; not with a short or unknown query.
            #expect(try await api.call(.get, "/admin/patrons?q=\(barcode.prefix(10))").status == .unauthorized)
            let byCard = try await api.call(.get, "/admin/patrons?q=\(barcode)", headers: ana)
            #expect((byCard.json["patrons"] as? [[String: Any]])?.map { $0["id"] as? String } == [reader.uuidString.lowercased()])
            let byEmail = try await api.call(.get, "/admin/patrons?q=reader.ONE", headers: ana)
            #expect((byEmail.json["patrons"] as? [[String: Any]])?.first?["cardNumber"] as? String == barcode)
            #expect(try await api.call(.get, "/admin/patrons?q=x", headers: ana).status == .badRequest)
            #expect(
                (try await api.call(.get, "/admin/patrons?q=%25%25", headers: ana).json["patrons"] as? [Any])?.isEmpty == true,
                "% is no wildcard"
            )

            // Blocked: the loan stays, a new borrow or hold is refused with the reason; unblocked, it works again.
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: reader).status == .created)
            #expect(try await api.call(.post, "/admin/patrons/\(reader)/block", json: #"{"reason": ""}"#, headers: ana).status == .badRequest)
            let blocked = try await api.call(.post, "/admin/patrons/\(reader)/block", json: #"{"reason": "Card reported stolen"}"#, headers: ana)
            #expect((blocked.json["patron"] as? [String: Any])?["blockedReason"] as? String == "Card reported stolen")
            let refused = try await api.call(.post, "/me/books/\(other)/borrow", patron: reader)
            #expect(refused.status == .forbidden && (refused.json["type"] as? String)?.hasSuffix("patron-blocked") == true)
            #expect((refused.json["detail"] as? String)?.contains("Card reported stolen") == true)
            #expect(try await api.call(.post, "/me/books/\(other)/hold", patron: reader).status == .forbidden)
            #expect(try await api.call(.get, "/me/books/\(book)", patron: reader).status == .ok, "a blocked patron keeps their loan")
            #expect(try await api.call(.delete, "/admin/patrons/\(reader)/block", headers: ben).status == .ok)
            #expect(try await api.call(.post, "/me/books/\(other)/borrow", patron: reader).status == .created)

            // A new PIN from staff: sessions end, the old PIN is refused, the new one signs in.
            let basic = { (pin: String) -> HTTPFields in [.authorization: "Basic " + Data("\(barcode):\(pin)".utf8).base64EncodedString()] }
            #expect(try await api.call(.post, "/auth/token", headers: basic("1234")).status == .ok)
            #expect(try await api.call(.post, "/admin/patrons/\(reader)/secret", json: #"{"pin": "12"}"#, headers: ben).status == .badRequest)
            let reset = try await api.call(.post, "/admin/patrons/\(reader)/secret", json: #"{"pin": "86420"}"#, headers: ben)
            #expect(reset.status == .noContent && reset.headers[.credentialsChanged] == reader.uuidString.lowercased())
            #expect(try await api.call(.post, "/auth/token", headers: basic("1234")).status == .unauthorized)
            #expect(try await api.call(.post, "/auth/token", headers: basic("86420")).status == .ok)

            // The loan ended for the patron: the next patron waiting gets the offer.
            #expect(try await api.call(.post, "/me/books/\(book)/hold", patron: next).status == .created)
            let ended = try await api.call(.post, "/admin/patrons/\(reader)/books/\(book)/end", headers: ana)
            #expect(ended.status == .ok, "\(String(decoding: ended.body, as: UTF8.self))")
            #expect((ended.json["books"] as? [[String: Any]])?.contains { $0["bookId"] as? String == book.uuidString.lowercased() } == false)
            #expect(try await api.call(.get, "/me/books/\(book)", patron: next).json["state"] as? String == "loan_offered")
            #expect(try await api.call(.post, "/admin/patrons/\(reader)/books/\(book)/end", headers: ana).status == .conflict)

            // The audit: who did what, newest first.
            let detail = try await api.call(.get, "/admin/patrons/\(reader)", headers: ana)
            let audit = try #require(detail.json["audit"] as? [[String: Any]])
            // Reading the patron's page is written down too ("viewed"), as each of the changes is.
            let changes = audit.filter { $0["action"] as? String != "viewed" }
            #expect(changes.map { "\($0["staff"] ?? "") \($0["action"] ?? "")" } == ["ana end-return", "ben reset-pin", "ben unblock", "ana block"])
            #expect(audit.first?["action"] as? String == "viewed" && audit.first?["staff"] as? String == "ana")
            #expect((detail.json["patron"] as? [String: Any])?["loans"] as? Int == 1)
            let everyone = try await api.call(.get, "/admin/audit", headers: ben)
            #expect((everyone.json["entries"] as? [[String: Any]])?.filter { $0["action"] as? String != "viewed" }.count == 4)
        }
    }

    @Test func announcementsShowInTheAuthDocumentOnlyWhileCurrent() async throws {
        let config = TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "news"), "ADMIN_TOKENS": Self.tokens])
        let app = try await buildPatronApplication(config: config)
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let staff: HTTPFields = [.authorization: "Bearer ana-token-0123456789", .contentType: "application/json"]
            let hour: TimeInterval = 3_600
            let now = WireFormat.formatDate(Date())
            let later = WireFormat.formatDate(Date().addingTimeInterval(hour))
            let tomorrow = WireFormat.formatDate(Date().addingTimeInterval(24 * hour))
            #expect(
                try await api.call(.post, "/admin/announcements", json: #"{"content": "x", "end": "\#(now)", "start": "\#(later)"}"#, headers: staff)
                    .status == .badRequest
            )
            let made = try await api.call(
                .post,
                "/admin/announcements",
                json: #"{"content": "Closed on Monday", "end": "\#(tomorrow)"}"#,
                headers: staff
            )
            #expect(made.status == .created)
            let id = try #require(made.json["id"] as? String)
            #expect(
                try await api.call(
                    .post,
                    "/admin/announcements",
                    json: #"{"content": "Later", "start": "\#(later)", "end": "\#(tomorrow)"}"#,
                    headers: staff
                ).status == .created
            )
            let document = try await api.call(.get, "/auth/document")
            let announced = try #require(document.json["announcements"] as? [[String: Any]])
            #expect(announced.map { $0["content"] as? String } == ["Closed on Monday"], "only the current one")
            #expect((try await api.call(.get, "/admin/announcements", headers: staff).json["announcements"] as? [Any])?.count == 2)
            #expect(try await api.call(.delete, "/admin/announcements/\(id)", headers: staff).status == .noContent)
            #expect((try await api.call(.get, "/auth/document").json["announcements"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func adminTokensAreNamedPairsHeldToTheRulesOfSecrets() throws {
        let tokens = try AdminTokens(
            config: ServiceConfig(environment: [:], overrides: ["ADMIN_TOKENS": Self.tokens, "ADMIN_TOKEN": "solo-0123456789"])
        )
        #expect(tokens.name(of: "ben-token-0123456789") == "ben")
        #expect(tokens.name(of: "solo-0123456789") == "admin")
        #expect(tokens.name(of: "ben-token") == nil && tokens.name(of: nil) == nil)
        for bad in ["ana", "ana:", ":tok", "ana:a,ana:b", "a b:tok"] {
            #expect(throws: ServiceConfig.Invalid.self, "\(bad)") {
                try AdminTokens(config: ServiceConfig(environment: [:], overrides: ["ADMIN_TOKENS": bad]))
            }
        }
        #expect(throws: ServiceConfig.Invalid.self) { try AdminTokens(config: ServiceConfig(environment: [:])) }
        #expect(throws: ServiceConfig.Invalid.self, "a published example is refused outside development") {
            try AdminTokens(config: ServiceConfig(environment: [:], overrides: ["ADMIN_TOKENS": "ana:dev-admin-token"]))
        }
    }
}
