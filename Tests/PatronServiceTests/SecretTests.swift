import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Shared
import TestSupport
import Testing

@testable import PatronService

/// Changing a PIN or password and ending every session, for a patron whose secret leaked.
@Suite struct SecretTests {
    func basic(_ login: String, _ secret: String) -> HTTPFields {
        [.authorization: "Basic " + Data("\(login):\(secret)".utf8).base64EncodedString()]
    }

    @Test func aChangedPinReplacesTheOldOneAndEndsOtherSessions() async throws {
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "secret")]))
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let card = try await api.call(.post, "/auth/signup", json: #"{"pin":"1234"}"#)
            let barcode = try #require((card.json["patron"] as? [String: Any])?["barcode"] as? String)
            let patron = try #require(UUID(uuidString: (card.json["patron"] as? [String: Any])?["id"] as? String ?? ""))
            let refresh = try #require((card.json["tokens"] as? [String: Any])?["refresh_token"] as? String)

            #expect(try await api.call(.put, "/me/password", patron: patron, json: #"{"current":"9999","new":"5678"}"#).status == .forbidden)
            #expect(try await api.call(.put, "/me/password", patron: patron, json: #"{"current":"1234","new":"56"}"#).status == .badRequest)
            #expect(try await api.call(.put, "/me/password", patron: patron, json: #"{"current":"1234"}"#).status == .badRequest)
            #expect(try await api.call(.put, "/me/password", json: #"{"current":"1234","new":"5678"}"#).status == .unauthorized)
            #expect(try await api.call(.post, "/auth/token", headers: basic(barcode, "1234")).status == .ok, "nothing changed yet")
            #expect(try await api.call(.put, "/me/password", patron: patron, json: #"{"current":"1234","new":"5678"}"#).status == .noContent)
            #expect(try await api.call(.post, "/auth/token", headers: basic(barcode, "1234")).status == .unauthorized)
            #expect(try await api.call(.post, "/auth/token", headers: basic(barcode, "5678")).status == .ok)
            #expect(
                try await api.call(.post, "/auth/refresh", json: #"{"refresh_token":"\#(refresh)"}"#).status == .unauthorized,
                "the sign-up session ended"
            )
        }
    }

    @Test func revokingEverySessionEndsAllOfThem() async throws {
        let app = try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "revoke")]))
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let card = try await api.call(.post, "/auth/signup", json: #"{"pin":"1234"}"#)
            let barcode = try #require((card.json["patron"] as? [String: Any])?["barcode"] as? String)
            let patron = try #require(UUID(uuidString: (card.json["patron"] as? [String: Any])?["id"] as? String ?? ""))
            var refreshTokens = [try #require((card.json["tokens"] as? [String: Any])?["refresh_token"] as? String)]
            refreshTokens.append(
                try #require(try await api.call(.post, "/auth/token", headers: basic(barcode, "1234")).json["refresh_token"] as? String)
            )
            let revoked = try await api.call(.post, "/me/sessions/revoke-all", patron: patron)
            #expect(revoked.status == .ok && revoked.json["revoked"] as? Int == 2)
            for token in refreshTokens {
                #expect(try await api.call(.post, "/auth/refresh", json: #"{"refresh_token":"\#(token)"}"#).status == .unauthorized)
            }
            #expect(try await api.call(.post, "/auth/token", headers: basic(barcode, "1234")).status == .ok, "signing in again works")
        }
    }
}
