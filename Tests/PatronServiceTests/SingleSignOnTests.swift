import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceSupport
import Shared
import TestSupport
import Testing

@testable import PatronService

/// Single sign-on against a real OpenID Connect provider on loopback (`OIDCTestServer`: Authlib, PKCE and nonces
/// required): the patron is sent to the provider, picks their account there, comes back, and the app gets tokens in
/// its address's fragment; the provider's subject is one patron for good, its claim sets the patron's type; codes,
/// states and addresses that are not this sign-in's are refused, and one address's sign-ins under way are capped; the
/// provider away answers 503, and sign-in works
/// again once it is back.
@Suite(.serialized) struct SingleSignOnTests {
    static let publicURL = "http://127.0.0.1:8080"

    func app(_ provider: OIDCTestServer?, database given: String? = nil) async throws -> some ApplicationProtocol {
        let database: String
        if let given { database = given } else { database = try await TestDatabase.create(prefix: "oidc") }
        return try await buildPatronApplication(
            config: TestConfig.base((provider?.configuration ?? [:]).merging(["PATRON_DATABASE_URL": database, "PUBLIC_URL": Self.publicURL]) { $1 })
        )
    }

    /// What a browser does at the provider: the form posted with the account picked (or `deny`); returns where the
    /// provider sends it (the callback, with a code or an error).
    func atProvider(_ location: String, form: String) async throws -> String {
        let answer = try await ChildProcess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{redirect_url}", "--data", form, location])
        return String(decoding: answer.output, as: UTF8.self)
    }

    /// Begins a sign-in: the redirect to the provider.
    func begin(_ api: PatronTestClient, redirect: String = publicURL + "/", state: String = "app-state") async throws -> String {
        let reply = try await api.call(.get, "/auth/oidc/authorize?redirect_uri=\(Self.encoded(redirect))&state=\(state)")
        #expect(reply.status == .found, "\(String(decoding: reply.body, as: UTF8.self))")
        return reply.headers[.location] ?? ""
    }

    /// The provider's return to patron, as the path and query patron answers.
    func callback(_ providerAnswer: String) throws -> String {
        let url = try #require(URLComponents(string: providerAnswer))
        #expect(providerAnswer.hasPrefix(Self.publicURL + "/auth/oidc/callback?"), "\(providerAnswer)")
        return url.path + "?" + (url.percentEncodedQuery ?? "")
    }

    /// The whole sign-in of `subject`: the app's address it ends at, and the fields of its fragment.
    func signIn(_ api: PatronTestClient, _ subject: String, redirect: String = publicURL + "/") async throws -> (String, [String: String]) {
        let back = try await api.call(.get, try callback(try await atProvider(try await begin(api, redirect: redirect), form: "sub=\(subject)")))
        #expect(back.status == .found && back.headers[.cacheControl] == "no-store")
        let location = back.headers[.location] ?? ""
        return (String(location.prefix { $0 != "#" }), Self.fragment(location))
    }

    static func fragment(_ location: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in location.split(separator: "#", maxSplits: 1).dropFirst().first?.split(separator: "&") ?? [] {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    static func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }

    func patron(of accessToken: String) async throws -> UUID {
        try #require(try await AccessTokenKeys(secret: TestConfig.jwtSecret).verify(accessToken).patronID)
    }

    @Test func aPatronSignsInThroughTheProviderAndIsTheSamePatronEachTime() async throws {
        let provider = OIDCTestServer()
        try await provider.start()
        defer { Task { await provider.stop() } }
        try await app(provider).testRouter { client in
            let api = PatronTestClient(client: client)
            let document = try await api.call(.get, "/auth/document")
            let flows = document.json["authentication"] as? [[String: Any]] ?? []
            let implicit = try #require(flows.first { $0["type"] as? String == "http://opds-spec.org/auth/oauth/implicit" })
            #expect((implicit["links"] as? [[String: Any]])?.first?["href"] as? String == Self.publicURL + "/auth/oidc/authorize")

            // To the provider: this client, PKCE (S256), a nonce, a state, and patron's own return address.
            let toProvider = try #require(URLComponents(string: try await begin(api)))
            let asked = Dictionary(uniqueKeysWithValues: (toProvider.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            #expect(toProvider.host == "127.0.0.1" && toProvider.port == provider.port && toProvider.path == "/oauth2/authorize")
            #expect(asked["client_id"] == OIDCTestServer.clientID && asked["code_challenge_method"] == "S256" && asked["response_type"] == "code")
            #expect(asked["redirect_uri"] == Self.publicURL + "/auth/oidc/callback" && asked["scope"] == "openid profile email")
            #expect(asked["state"]?.count ?? 0 >= 43 && asked["nonce"]?.count ?? 0 >= 43 && asked["state"] != "app-state")

            let (to, fields) = try await signIn(api, OIDCTestServer.child)
            #expect(to == Self.publicURL + "/")
            #expect(fields["token_type"] == "bearer" && fields["state"] == "app-state" && fields["expires_in"] != nil, "\(fields)")
            let kit = try await patron(of: try #require(fields["access_token"]))
            let me = try await api.call(.get, "/me", patron: kit)
            #expect(me.json["displayName"] as? String == "Kit Young" && me.json["patronType"] as? String == "child", "\(me.json)")
            // The refresh token is a session's like any other.
            let refreshed = try await api.call(.post, "/auth/refresh", json: #"{"refresh_token":"\#(fields["refresh_token"] ?? "")"}"#)
            #expect(refreshed.status == .ok)

            // The same subject is the same patron; another is another.
            let (_, again) = try await signIn(api, OIDCTestServer.child)
            #expect(try await patron(of: again["access_token"] ?? "") == kit)
            let (_, annFields) = try await signIn(api, OIDCTestServer.adult)
            let ann = try await patron(of: annFields["access_token"] ?? "")
            #expect(ann != kit)
            #expect(try await api.call(.get, "/me", patron: ann).json["patronType"] as? String == "adult")

            // Their card has no PIN here: Basic sign-in with it is refused whatever is typed.
            let barcode = try #require(me.json["barcode"] as? String)
            for pin in ["", "1234", "!oidc:"] {
                let basic = "Basic " + Data("\(barcode):\(pin)".utf8).base64EncodedString()
                #expect(try await api.call(.post, "/auth/token", headers: [.authorization: basic]).status == .unauthorized)
            }

            // An app with its own scheme gets its tokens there.
            let (appTo, appFields) = try await signIn(api, OIDCTestServer.adult, redirect: "org.example.reader:/oauth/done")
            #expect(appTo == "org.example.reader:/oauth/done" && appFields["access_token"] != nil)
        }
    }

    /// A patron of the provider has no PIN to confirm a KOReader sync key with, and a key outlives any session: the key
    /// is made by a round trip through the provider (`purpose=sync-key`), shown once in the web app's fragment, never a
    /// token's; the same key limit holds, and a PIN is refused in its place.
    @Test func aPatronOfTheProviderMakesASyncKeyThroughIt() async throws {
        let provider = OIDCTestServer()
        try await provider.start()
        defer { Task { await provider.stop() } }
        let database = try await TestDatabase.create(prefix: "oidckey")
        try await app(provider, database: database).testRouter { client in
            let api = PatronTestClient(client: client)
            let (_, fields) = try await signIn(api, OIDCTestServer.adult)
            let ann = try await patron(of: try #require(fields["access_token"]))
            #expect(try await api.call(.get, "/me", patron: ann).json["signIn"] as? String == "oidc")
            for body in [#"{"device":"Kobo","secret":"1234"}"#, #"{"device":"Kobo"}"#] {
                let refused = try await api.call(.post, "/me/sync-keys", patron: ann, json: body)
                #expect(
                    refused.status == .forbidden
                        && refused.json["type"] as? String == "https://bookmobile.dev/problems/sync-key-through-single-sign-on",
                    "\(refused.json)"
                )
            }

            let toProvider = try await api.call(.get, "/auth/oidc/authorize?purpose=sync-key&device=%20Kobo%20Clara%20&state=k1")
            #expect(toProvider.status == .found)
            let back = try await api.call(
                .get,
                try callback(try await atProvider(toProvider.headers[.location] ?? "", form: "sub=\(OIDCTestServer.adult)"))
            )
            let location = back.headers[.location] ?? ""
            #expect(back.status == .found && back.headers[.cacheControl] == "no-store" && location.hasPrefix(Self.publicURL + "/#"))
            let made = Self.fragment(location)
            #expect(made["access_token"] == nil && made["refresh_token"] == nil, "a key's return makes no session: \(made)")
            #expect(made["device"] == "Kobo Clara" && made["state"] == "k1" && made["sync_key"]?.count == 16, "\(made)")
            let username = try #require(made["sync_key_username"])
            let keys = try #require(try await api.call(.get, "/me/sync-keys", patron: ann).json["syncKeys"] as? [[String: Any]])
            #expect(keys.map { $0["id"] as? String } == [made["sync_key_id"]] && keys.first?["username"] as? String == username)
            let device = KOSyncTests.device(username, made["sync_key"] ?? "")
            #expect(try await api.call(.get, "/kosync/users/auth", headers: device).json["authorized"] as? String == "OK")

            // Only the library's own address is shown a key, for a named device, for this purpose only.
            for (query, why) in [
                ("purpose=sync-key&device=Kobo&redirect_uri=\(Self.encoded("org.example.reader:/oauth/done"))", "an app's scheme"),
                ("purpose=sync-key&device=Kobo&redirect_uri=\(Self.encoded("https://elsewhere.example/"))", "another site"),
                ("purpose=sync-key&device=%20", "no device"), ("purpose=sync-key", "no device"), ("purpose=everything", "an unknown purpose"),
                ("purpose=sync-key&device=Kobo&device=Kindle", "two devices"), ("purpose=sync-key&device=%E9", "a device not in UTF-8"),
            ] {
                let refused = try await api.call(.get, "/auth/oidc/authorize?\(query)")
                #expect(refused.status == .badRequest && refused.json["type"] != nil, "\(why): \(refused.status)")
            }

            // At the limit, the return says so and makes nothing.
            try await TestDatabase.execute(
                """
                INSERT INTO sync_keys (id, patron_id, username, key_hash, device)
                SELECT gen_random_uuid(), '\(ann)', 'old' || g, decode(md5(g::text), 'hex'), 'Old ' || g FROM generate_series(1, 18) g
                """,
                on: database
            )
            // A form's `+` is a space, as the web app's `URLSearchParams` writes it; `%2B` is a plus.
            let spaced = try await api.call(.get, "/auth/oidc/authorize?purpose=sync-key&device=Kobo+Libra%2B")
            let spacedBack = try await api.call(
                .get,
                try callback(try await atProvider(spaced.headers[.location] ?? "", form: "sub=\(OIDCTestServer.adult)"))
            )
            #expect(Self.fragment(spacedBack.headers[.location] ?? "")["device"] == "Kobo Libra+")
            let full = try await api.call(.get, "/auth/oidc/authorize?purpose=sync-key&device=Kindle")
            let refused = try await api.call(
                .get,
                try callback(try await atProvider(full.headers[.location] ?? "", form: "sub=\(OIDCTestServer.adult)"))
            )
            let said = Self.fragment(refused.headers[.location] ?? "")
            #expect(said["error"] == "sync_key_limit" && said["sync_key"] == nil, "\(said)")
            #expect((try await api.call(.get, "/me/sync-keys", patron: ann).json["syncKeys"] as? [[String: Any]])?.count == 20)
        }
    }

    @Test func whatIsNotThisSignInsIsRefused() async throws {
        let provider = OIDCTestServer()
        try await provider.start()
        defer { Task { await provider.stop() } }
        try await app(provider).testRouter { client in
            let api = PatronTestClient(client: client)
            // Tokens go to this library's address or an allowed app only.
            for redirect in ["https://evil.example/", "http://127.0.0.1:8081/", "org.example.other:/x", Self.publicURL + "/#x"] {
                let refused = try await api.call(.get, "/auth/oidc/authorize?redirect_uri=\(Self.encoded(redirect))")
                #expect(refused.status == .badRequest, "\(redirect)")
            }

            // A state is good once.
            let answer = try await atProvider(try await begin(api), form: "sub=\(OIDCTestServer.adult)")
            #expect(try await api.call(.get, try callback(answer)).status == .found)
            let replay = try await api.call(.get, try callback(answer))
            #expect(replay.status == .badRequest && (replay.json["type"] as? String)?.hasSuffix("single-sign-on-failed") == true)
            #expect(try await api.call(.get, "/auth/oidc/callback?state=made-up&code=x").status == .badRequest)

            // Another sign-in's code under this sign-in's state: the provider checks PKCE, and nobody signs in.
            let first = try await atProvider(try await begin(api), form: "sub=\(OIDCTestServer.adult)")
            let second = try await atProvider(try await begin(api), form: "sub=\(OIDCTestServer.adult)")
            let code = try #require(URLComponents(string: first)?.queryItems?.first { $0.name == "code" }?.value)
            let state = try #require(URLComponents(string: second)?.queryItems?.first { $0.name == "state" }?.value)
            let swapped = try await api.call(.get, "/auth/oidc/callback?code=\(code)&state=\(state)")
            let swappedFields = Self.fragment(swapped.headers[.location] ?? "")
            #expect(swapped.status == .found && swappedFields["error"] == "access_denied" && swappedFields["access_token"] == nil, "\(swappedFields)")

            // The patron says no at the provider, which sends them back with an error and the state (RFC 6749
            // 4.1.2.1; this provider's own deny button leaves the state out): the app hears it, with its own state.
            let ours = try #require(URLComponents(string: try await begin(api))?.queryItems?.first { $0.name == "state" }?.value)
            let denied = try await api.call(.get, "/auth/oidc/callback?error=access_denied&state=\(ours)")
            let deniedFields = Self.fragment(denied.headers[.location] ?? "")
            #expect(deniedFields["error"] == "access_denied" && deniedFields["state"] == "app-state" && deniedFields["access_token"] == nil)
            #expect(try await api.call(.get, "/auth/oidc/callback?error=access_denied&state=\(ours)").status == .badRequest, "used")
        }
        // One address may have 20 sign-ins under way at once; the next waits (and changes nothing).
        try await app(provider).testRouter { client in
            let api = PatronTestClient(client: client)
            let from: HTTPFields = [.clientAddress: "203.0.113.9"]
            for _ in 0..<SingleSignOnPostgresRepository.perAddress {
                #expect(try await api.call(.get, "/auth/oidc/authorize", headers: from).status == .found)
            }
            let flood = try await api.call(.get, "/auth/oidc/authorize", headers: from)
            #expect(flood.status == .tooManyRequests && flood.headers[.retryAfter] != nil)
            #expect(try await api.call(.get, "/auth/oidc/authorize", headers: [.clientAddress: "203.0.113.10"]).status == .found)
        }
        // Without single sign-on configured, its routes are not found.
        try await app(nil).testRouter { client in
            let off = try await PatronTestClient(client: client).call(.get, "/auth/oidc/authorize")
            #expect(off.status == .notFound)
        }
    }

    @Test func theProviderAwayAnswers503AndSignInWorksOnceItIsBack() async throws {
        let provider = OIDCTestServer()
        try await provider.start()
        defer { Task { await provider.stop() } }
        try await app(provider).testRouter { client in
            let api = PatronTestClient(client: client)
            // Away before anyone signed in: nothing to send the patron to.
            await provider.stop()
            let away = try await api.call(.get, "/auth/oidc/authorize")
            #expect(away.status == .serviceUnavailable && away.headers[.retryAfter] != nil, "\(away.status)")
            try await provider.start()
            #expect(try await signIn(api, OIDCTestServer.adult).1["access_token"] != nil)
            // A sign-in under way when the provider goes: its return cannot be checked, and the app is told to retry.
            let answer = try await atProvider(try await begin(api), form: "sub=\(OIDCTestServer.adult)")
            await provider.stop()
            let cut = Self.fragment(try await api.call(.get, try callback(answer)).headers[.location] ?? "")
            #expect(cut["error"] == "temporarily_unavailable", "\(cut)")

            // Back, with a new signing key: patron reads the provider's keys again.
            try await provider.start()
            let (_, fields) = try await signIn(api, OIDCTestServer.adult)
            #expect(fields["access_token"] != nil, "\(fields)")
        }
    }
}
