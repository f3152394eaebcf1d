import Foundation
import HTTPTypes
import Shared
import TestSupport
import Testing

@testable import PatronService

/// The gateway's batched renewals (`POST /internal/sessions/statuses`, `POST /internal/patrons/secret-stamps`): the
/// same answer for each id as its single route, for many ids in one request; service token only; bad input a 400.
extension AuthTests {
    @Test func manySessionsAndSecretStampsAreAnsweredAsTheirSingleRoutesAnswerThem() async throws {
        try await app().testRouter { client in
            let api = PatronTestClient(client: client)
            func session(_ reply: PatronTestClient.Reply) throws -> (patron: String, session: String) {
                let patron = try #require((reply.json["patron"] as? [String: Any])?["id"] as? String)
                let access = try #require((reply.json["tokens"] as? [String: Any])?["access_token"] as? String)
                var claims = try #require(access.split(separator: ".").dropFirst().first.map(String.init))
                claims = claims.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                claims += String(repeating: "=", count: (4 - claims.count % 4) % 4)
                let data = try #require(Data(base64Encoded: claims))
                return (patron, try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["sid"] as? String))
            }
            let ann = try session(try await api.call(.post, "/auth/signup", json: #"{"pin":"1111"}"#))
            let bobSignUp = try await api.call(.post, "/auth/signup", json: #"{"pin":"2222"}"#)
            let bob = try session(bobSignUp)
            let bobRefresh = try #require((bobSignUp.json["tokens"] as? [String: Any])?["refresh_token"] as? String)
            #expect(try await api.call(.post, "/auth/logout", json: #"{"refresh_token":"\#(bobRefresh)"}"#).status == .noContent)
            let unknown = UUID().uuidString.lowercased()

            let statuses = try await api.call(
                .post,
                "/internal/sessions/statuses",
                json: #"{"ids":["\#(ann.session)","\#(bob.session)","\#(unknown)"]}"#
            )
            #expect(statuses.status == .ok)
            let sessions = try #require(statuses.json["sessions"] as? [String: [String: Any]])
            for id in [ann.session, bob.session, unknown] {
                let single = try await api.call(.get, "/internal/sessions/\(id)").json
                #expect(sessions[id]?["open"] as? Bool == single["open"] as? Bool, "\(id)")
                #expect(sessions[id]?["patronId"] as? String == single["patronId"] as? String, "\(id)")
            }
            #expect(sessions[ann.session]?["open"] as? Bool == true)
            #expect(sessions[ann.session]?["patronId"] as? String == ann.patron)
            #expect(sessions[bob.session]?["open"] as? Bool == false, "logged out")

            let gone = UUID().uuidString.lowercased()
            let stamps = try await api.call(
                .post,
                "/internal/patrons/secret-stamps",
                json: #"{"ids":["\#(ann.patron)","\#(bob.patron)","\#(gone)"]}"#
            )
            #expect(stamps.status == .ok)
            let byPatron = try #require(stamps.json["stamps"] as? [String: Any])
            for id in [ann.patron, bob.patron] {
                let single = try await api.call(.get, "/internal/patrons/\(id)/secret-stamp").json["stamp"] as? String
                #expect(single != nil && byPatron[id] as? String == single, "\(id)")
            }
            #expect(byPatron[gone] is NSNull, "an account that does not exist: null, as the single route says")

            let tooMany = (0...IDsAsked.limit).map { _ in "\"\(UUID().uuidString.lowercased())\"" }.joined(separator: ",")
            for body in [#"{"ids":[]}"#, #"{"ids":[\#(tooMany)]}"#, #"{"ids":["not-an-id"]}"#, "[]"] {
                for path in ["/internal/sessions/statuses", "/internal/patrons/secret-stamps"] {
                    #expect(try await api.call(.post, path, json: body).status == .badRequest, "\(path) \(body.prefix(40))")
                }
            }
            for path in ["/internal/sessions/statuses", "/internal/patrons/secret-stamps"] {
                let refused = try await api.call(.post, path, json: #"{"ids":["\#(ann.session)"]}"#, headers: [.serviceToken: "nope"])
                #expect(refused.status == .unauthorized, "internal: the service token only")
            }
        }
    }
}
