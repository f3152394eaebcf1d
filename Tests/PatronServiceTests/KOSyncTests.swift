import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Shared
import TestSupport
import Testing

@testable import PatronService

/// KOReader's sync protocol (`/kosync`, koreader-sync-server's routes, status codes and error bodies) on sync keys
/// from `/me/sync-keys`, against PostgreSQL. A book's own position (known to catalog) is in `KOReaderSyncTests`, with
/// the three services.
@Suite struct KOSyncTests {
    static func app(_ prefix: String) async throws -> some ApplicationProtocol {
        // No catalog answers there: a book's reading order cannot be read.
        try await buildPatronApplication(
            config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: prefix), "CATALOG_URLS": "http://127.0.0.1:9"])
        )
    }

    /// KOReader's headers for a sync key: its user name, and the MD5 of the key as KOReader sends its password.
    static func device(_ username: String, _ key: String) -> HTTPFields {
        [
            HTTPField.Name("x-auth-user")!: username, HTTPField.Name("x-auth-key")!: SyncKeySecret.sent(key),
            .accept: "application/vnd.koreader.v1+json",
        ]
    }

    @Test func syncKeysAreMadeListedWithoutTheirKeyAndRevokedByTheirPatronOnly() async throws {
        try await Self.app("synckeys").testRouter { client in
            let api = PatronTestClient(client: client)
            let ann = try await api.newPatron()
            let bob = try await api.newPatron()
            #expect(try await api.call(.post, "/me/sync-keys", patron: ann, json: #"{"device":"  ","secret":"1234"}"#).status == .badRequest)
            let made = try await api.call(.post, "/me/sync-keys", patron: ann, json: #"{"device":"Kobo Clara","secret":"1234"}"#)
            #expect(made.status == .created && made.headers[.cacheControl] == "no-store")
            let key = try #require(made.json["key"] as? String)
            let username = try #require(made.json["username"] as? String)
            let id = try #require(made.json["id"] as? String)
            #expect(key.count == 16 && username.count == 10)
            let listed = try await api.call(.get, "/me/sync-keys", patron: ann)
            let keys = try #require(listed.json["syncKeys"] as? [[String: Any]])
            #expect(keys.count == 1 && keys[0]["device"] as? String == "Kobo Clara" && keys[0]["key"] == nil)
            #expect(!String(decoding: listed.body, as: UTF8.self).contains(key), "the key is shown once")
            #expect((try await api.call(.get, "/me/sync-keys", patron: bob).json["syncKeys"] as? [Any])?.isEmpty == true)

            #expect(try await api.call(.get, "/kosync/users/auth", headers: Self.device(username, key)).json["authorized"] as? String == "OK")
            #expect(try await api.call(.get, "/kosync/users/auth", headers: Self.device(username.uppercased(), key)).status == .ok)
            let wrong = try await api.call(.get, "/kosync/users/auth", headers: Self.device(username, key + "x"))
            #expect(wrong.status == .unauthorized && wrong.json["code"] as? Int == 2001 && wrong.json["message"] as? String == "Unauthorized")
            #expect(try await api.call(.get, "/kosync/users/auth").status == .unauthorized)
            let listedAfterUse = try await api.call(.get, "/me/sync-keys", patron: ann).json["syncKeys"] as? [[String: Any]]
            #expect(listedAfterUse?.first?["lastUsedAt"] is String)

            #expect(try await api.call(.delete, "/me/sync-keys/\(id)", patron: bob).status == .notFound)
            #expect(try await api.call(.delete, "/me/sync-keys/\(id)", patron: ann).status == .noContent)
            #expect(try await api.call(.get, "/kosync/users/auth", headers: Self.device(username, key)).status == .unauthorized)
        }
    }

    /// A key outlives the session that made it: making one takes the current PIN, and every credential reset (sessions
    /// revoked, a new PIN, staff's reset) ends every key.
    @Test func aKeyTakesTheCurrentSecretAndEndsWithEveryCredentialReset() async throws {
        try await Self.app("synckeyreset").testRouter { client in
            let api = PatronTestClient(client: client)
            let ann = try await api.newPatron()
            let wrong = try await api.call(.post, "/me/sync-keys", patron: ann, json: #"{"device":"Kobo","secret":"0000"}"#)
            #expect(wrong.status == .forbidden && wrong.json["type"] as? String != nil)
            #expect(try await api.call(.post, "/me/sync-keys", patron: ann, json: #"{"device":"Kobo"}"#).status == .badRequest)
            #expect((try await api.call(.get, "/me/sync-keys", patron: ann).json["syncKeys"] as? [Any])?.isEmpty == true)

            func madeKey(_ secret: String) async throws -> HTTPFields {
                let made = try await api.call(.post, "/me/sync-keys", patron: ann, json: #"{"device":"Kobo","secret":"\#(secret)"}"#)
                #expect(made.status == .created)
                let fields = Self.device(try #require(made.json["username"] as? String), try #require(made.json["key"] as? String))
                #expect(try await api.call(.get, "/kosync/users/auth", headers: fields).status == .ok)
                return fields
            }
            let beforeRevoke = try await madeKey("1234")
            #expect(try await api.call(.post, "/me/sessions/revoke-all", patron: ann).status == .ok)
            #expect(try await api.call(.get, "/kosync/users/auth", headers: beforeRevoke).status == .unauthorized)

            let beforeChange = try await madeKey("1234")
            #expect(try await api.call(.put, "/me/password", patron: ann, json: #"{"current":"1234","new":"5678"}"#).status == .noContent)
            #expect(try await api.call(.get, "/kosync/users/auth", headers: beforeChange).status == .unauthorized)

            let beforeReset = try await madeKey("5678")
            let staff: HTTPFields = [.authorization: "Bearer \(TestConfig.adminToken)"]
            #expect(try await api.call(.post, "/admin/patrons/\(ann)/secret", json: #"{"pin": "86420"}"#, headers: staff).status.code < 300)
            #expect(try await api.call(.get, "/kosync/users/auth", headers: beforeReset).status == .unauthorized)
            #expect((try await api.call(.get, "/me/sync-keys", patron: ann).json["syncKeys"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func aPatronHasAtMostTwentyKeys() async throws {
        try await Self.app("synclimit").testRouter { client in
            let api = PatronTestClient(client: client)
            let ann = try await api.newPatron()
            // Three waves of eight at once: more at once would pass the PIN check's own throttle (10 checks under way
            // for one login), which counts each check before it ends.
            var statuses: [HTTPResponse.Status] = []
            for wave in 0..<3 {
                statuses += try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                    for n in 0..<8 {
                        group.addTask {
                            try await api.call(.post, "/me/sync-keys", patron: ann, json: #"{"device":"Reader \#(wave)-\#(n)","secret":"1234"}"#)
                                .status
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            #expect(statuses.filter { $0 == .created }.count == 20 && statuses.filter { $0 == .conflict }.count == 4)
        }
    }

    @Test func registrationCreatesNothingAndAnswersAsKOReaderExpects() async throws {
        try await Self.app("syncreg").testRouter { client in
            let api = PatronTestClient(client: client)
            let ann = try await api.newPatron()
            let username = try #require(
                try await api.call(.post, "/me/sync-keys", patron: ann, json: #"{"device":"Kobo","secret":"1234"}"#).json["username"] as? String
            )
            let taken = try await api.call(.post, "/kosync/users/create", json: #"{"username":"\#(username)","password":"x"}"#)
            #expect(taken.status.code == 402 && taken.json["code"] as? Int == 2002)
            let other = try await api.call(
                .post,
                "/kosync/users/create",
                json: #"{"username":"newcomer","password":"5f4dcc3b5aa765d61d8327deb882cf99"}"#
            )
            #expect(other.status.code == 402 && other.json["code"] as? Int == 2005)
            #expect(try await api.call(.post, "/kosync/users/create", json: #"{"username":"a:b","password":"x"}"#).json["code"] as? Int == 2003)
            #expect(try await api.call(.get, "/kosync/users/auth", headers: Self.device("newcomer", "password")).status == .unauthorized)
            #expect(try await api.call(.get, "/kosync/healthcheck").json["state"] as? String == "OK")
        }
    }

    /// A device sending progress for made-up file names keeps at most the patron's cap of them: the least recently
    /// written go first.
    @Test func progressInFilesTheLibraryDoesNotKnowIsCappedPerPatron() async throws {
        let app = try await buildPatronApplication(
            config: TestConfig.base([
                "PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "syncdoccap"), "CATALOG_URLS": "http://127.0.0.1:9",
                "KOREADER_DOCUMENTS_PER_PATRON": "3",
            ])
        )
        try await app.testRouter { client in
            let api = PatronTestClient(client: client)
            let ann = try await api.newPatron()
            let made = try await api.call(.post, "/me/sync-keys", patron: ann, json: #"{"device":"Kobo","secret":"1234"}"#).json
            let kobo = Self.device(try #require(made["username"] as? String), try #require(made["key"] as? String))
            let documents = (0..<5).map { String(format: "%032x", 0xabc0 + $0) }
            for document in documents {
                let put = #"{"document":"\#(document)","progress":"/body/p[1]","percentage":0.1,"device":"Kobo"}"#
                #expect(try await api.call(.put, "/kosync/syncs/progress", json: put, headers: kobo).status == .ok)
            }
            var kept: [String] = []
            for document in documents where try await api.call(.get, "/kosync/syncs/progress/\(document)", headers: kobo).json["percentage"] != nil {
                kept.append(document)
            }
            #expect(kept == Array(documents.suffix(3)), "\(kept)")
        }
    }

    @Test func progressInAFileTheLibraryDoesNotKnowIsKeptForThePatronAlone() async throws {
        try await Self.app("syncdoc").testRouter { client in
            let api = PatronTestClient(client: client)
            let ann = try await api.newPatron()
            let bob = try await api.newPatron()
            func key(_ patron: UUID) async throws -> HTTPFields {
                let made = try await api.call(.post, "/me/sync-keys", patron: patron, json: #"{"device":"Kobo","secret":"1234"}"#).json
                return Self.device(try #require(made["username"] as? String), try #require(made["key"] as? String))
            }
            let (annKobo, bobKobo) = (try await key(ann), try await key(bob))
            let document = "0123456789abcdef0123456789abcdef"
            #expect(try await api.call(.get, "/kosync/syncs/progress/\(document)", headers: annKobo).body == Data("{}".utf8))
            let put =
                #"{"document":"\#(document)","progress":"/body/DocFragment[3]/body/p[2]/text().4","percentage":0.42,"device":"Kobo","device_id":"K1"}"#
            let saved = try await api.call(.put, "/kosync/syncs/progress", json: put, headers: annKobo)
            #expect(saved.status == .ok && saved.json["document"] as? String == document && saved.json["timestamp"] is Int)
            let got = try await api.call(.get, "/kosync/syncs/progress/\(document)", headers: annKobo).json
            #expect(got["percentage"] as? Double == 0.42 && got["progress"] as? String == "/body/DocFragment[3]/body/p[2]/text().4")
            #expect(
                got["device"] as? String == "Kobo" && got["device_id"] as? String == "K1"
                    && got["timestamp"] as? Int == saved.json["timestamp"] as? Int
            )
            #expect(try await api.call(.get, "/kosync/syncs/progress/\(document)", headers: bobKobo).body == Data("{}".utf8), "another patron's")

            let missing = try await api.call(
                .put,
                "/kosync/syncs/progress",
                json: #"{"progress":"x","percentage":0.1,"device":"Kobo"}"#,
                headers: annKobo
            )
            #expect(missing.status == .forbidden && missing.json["code"] as? Int == 2004)
            let incomplete = try await api.call(
                .put,
                "/kosync/syncs/progress",
                json: #"{"document":"\#(document)","percentage":0.1}"#,
                headers: annKobo
            )
            #expect(incomplete.status == .forbidden && incomplete.json["code"] as? Int == 2003)
            let outside = try await api.call(
                .put,
                "/kosync/syncs/progress",
                json: #"{"document":"\#(document)","progress":"x","percentage":7,"device":"Kobo"}"#,
                headers: annKobo
            )
            #expect(outside.json["code"] as? Int == 2003)
            #expect(try await api.call(.put, "/kosync/syncs/progress", json: "not json", headers: annKobo).json["code"] as? Int == 2003)
            #expect(try await api.call(.put, "/kosync/syncs/progress", json: put).status == .unauthorized)
            #expect(try await api.call(.get, "/kosync/syncs/progress/\(document)", headers: annKobo).json["percentage"] as? Double == 0.42)
        }
    }

    @Test func aBooksProgressWaitsForCatalogWhenItsReadingOrderCannotBeRead() async throws {
        try await Self.app("syncbook").testRouter { client in
            let api = PatronTestClient(client: client)
            let book = UUID()
            let digest = "fedcba9876543210fedcba9876543210"
            try await api.license(book, copies: 1, openAccess: true, koreaderDigest: digest)
            let ann = try await api.newPatron()
            let made = try await api.call(.post, "/me/sync-keys", patron: ann, json: #"{"device":"Kobo","secret":"1234"}"#).json
            let kobo = Self.device(try #require(made["username"] as? String), try #require(made["key"] as? String))
            let put = #"{"document":"\#(digest)","progress":"/body/DocFragment[2]/body","percentage":0.5,"device":"Kobo"}"#
            let refused = try await api.call(.put, "/kosync/syncs/progress", json: put, headers: kobo)
            #expect(refused.status == .serviceUnavailable && refused.headers[.retryAfter] != nil)
            #expect(try await api.call(.get, "/me/books/\(book)/position", patron: ann).status == .notFound, "nothing half-kept")
        }
    }
}
