import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceSupport
import Shared
import TestSupport
import Testing

@testable import PatronService

@Suite struct AuthTests {
    func app() async throws -> some ApplicationProtocol {
        try await buildPatronApplication(config: TestConfig.base(["PATRON_DATABASE_URL": try await TestDatabase.create(prefix: "patron")]))
    }

    func basic(_ login: String, _ secret: String) -> HTTPFields {
        [.authorization: "Basic " + Data("\(login):\(secret)".utf8).base64EncodedString()]
    }

    @Test func signupValidatesEveryFieldAndRefusesTakenNames() async throws {
        try await app().testRouter { client in
            let api = PatronTestClient(client: client)
            #expect(
                try await api.call(.post, "/auth/signup", json: #"{"username":"ann","email":"bad","password":"Secret-pass-1"}"#).status == .badRequest
            )
            #expect(
                try await api.call(.post, "/auth/signup", json: #"{"username":"ann","email":"ann@example.org","password":"short"}"#).status
                    == .badRequest
            )
            #expect(try await api.call(.post, "/auth/signup", json: #"{"pin":"12ab"}"#).status == .badRequest)
            #expect(try await api.call(.post, "/auth/signup", json: #"{"pin":"1234","extra":1}"#).status == .badRequest)
            #expect(try await api.call(.post, "/auth/signup", json: #"{"pin":1234}"#).status == .badRequest)
            #expect(try await api.call(.post, "/auth/signup", json: "{not json").status == .badRequest)
            let created = try await api.call(.post, "/auth/signup", json: #"{"username":"ann","email":"Ann@example.org","password":"Secret-pass-1"}"#)
            #expect(created.status == .created)
            let barcode = (created.json["patron"] as? [String: Any])?["barcode"] as? String
            #expect(barcode?.count == 14)
            let again = try await api.call(.post, "/auth/signup", json: #"{"username":"ANN","email":"other@example.org","password":"Secret-pass-1"}"#)
            #expect(again.status == .conflict)
            // Ann has not confirmed her address: her claim does not block it (`EmailChangeTests`).
            #expect(
                try await api.call(.post, "/auth/signup", json: #"{"username":"bob","email":"ann@EXAMPLE.org","password":"Secret-pass-1"}"#).status
                    == .created
            )
        }
    }

    @Test func tokensComeFromBarcodeAndPinOrUsernameAndPassword() async throws {
        try await app().testRouter { client in
            let api = PatronTestClient(client: client)
            let card = try await api.call(.post, "/auth/signup", json: #"{"pin":"4321"}"#)
            let barcode = try #require((card.json["patron"] as? [String: Any])?["barcode"] as? String)
            let good = try await api.call(.post, "/auth/token", headers: basic(barcode, "4321"))
            #expect(good.status == .ok)
            let tokens = try good.decode(TokenResponse.self)
            #expect(tokens.tokenType == "Bearer" && tokens.expiresIn == 900)
            let wrong = try await api.call(.post, "/auth/token", headers: basic(barcode, "0000"))
            #expect(wrong.status == .unauthorized)
            let unknown = try await api.call(.post, "/auth/token", headers: basic("29999999999999", "0000"))
            #expect(unknown.status == .unauthorized)
            #expect(unknown.json["detail"] as? String == wrong.json["detail"] as? String)

            _ = try await api.call(.post, "/auth/signup", json: #"{"username":"reader","email":"r@example.org","password":"Secret-pass-1"}"#)
            #expect(try await api.call(.post, "/auth/token", headers: basic("READER", "Secret-pass-1")).status == .ok)
            let missing = try await api.call(.post, "/auth/token")
            #expect(missing.status == .unauthorized)
            #expect(missing.headers[.wwwAuthenticate]?.hasPrefix("Basic") == true)
        }
    }

    /// An unknown login is checked against a decoy hash of the configured cost, so it costs what a wrong PIN costs.
    /// (The times themselves are measured by the benchmark: `make bench`, "One sign-in at a time ... by outcome".)
    @Test func anUnknownLoginCostsOneBcryptVerificationOfTheConfiguredCost() async throws {
        for cost in [4, 6] {
            let hasher = PasswordHasher(cost: cost, workers: 1, maxWait: 30)
            #expect(hasher.decoy.hasPrefix("$2b$0\(cost)$"), "\(hasher.decoy)")
            let real = try await hasher.hash("1234")
            #expect(real.prefix(7) == hasher.decoy.prefix(7), "the decoy is as expensive as a stored hash")
            #expect(try await hasher.verify("1234", hash: hasher.decoy) == false)
        }
    }

    @Test func repeatedFailuresLockTheLoginWhetherOrNotItExists() async throws {
        try await app().testRouter { client in
            let api = PatronTestClient(client: client)
            let card = try await api.call(.post, "/auth/signup", json: #"{"pin":"4321"}"#)
            let barcode = try #require((card.json["patron"] as? [String: Any])?["barcode"] as? String)
            for login in [barcode, "20000000000004"] {
                var statuses: [HTTPResponse.Status] = []
                for _ in 0..<10 { statuses.append(try await api.call(.post, "/auth/token", headers: basic(login, "9999")).status) }
                #expect(statuses.allSatisfy { $0 == .unauthorized })
                let locked = try await api.call(.post, "/auth/token", headers: basic(login, "4321"))
                #expect(locked.status == .tooManyRequests)
                #expect(locked.headers[.retryAfter] != nil)
                #expect(locked.json["throttled"] as? String == "login")
                #expect(locked.json["throttledUntil"] is String)
            }
        }
    }

    @Test func refreshRotatesReuseRevokesTheSessionAndLogoutEndsIt() async throws {
        try await app().testRouter { client in
            let api = PatronTestClient(client: client)
            let first = (try await api.call(.post, "/auth/signup", json: #"{"pin":"1111"}"#)).json["tokens"] as? [String: Any]
            let refresh = try #require(first?["refresh_token"] as? String)
            let rotated = try await api.call(.post, "/auth/refresh", json: #"{"refresh_token":"\#(refresh)"}"#)
            #expect(rotated.status == .ok)
            let next = try rotated.decode(TokenResponse.self).refreshToken
            let reuse = try await api.call(.post, "/auth/refresh", json: #"{"refresh_token":"\#(refresh)"}"#)
            #expect(reuse.status == .unauthorized)
            #expect(try await api.call(.post, "/auth/refresh", json: #"{"refresh_token":"\#(next)"}"#).status == .unauthorized)

            let other = (try await api.call(.post, "/auth/signup", json: #"{"pin":"2222"}"#)).json["tokens"] as? [String: Any]
            let otherRefresh = try #require(other?["refresh_token"] as? String)
            // The gateway asks whether an access token's session is open: yes until logout, never for a revoked or unknown one.
            func sessionOpen(_ tokens: [String: Any]?) async throws -> Bool {
                var claims = try #require((tokens?["access_token"] as? String)?.split(separator: ".").dropFirst().first.map(String.init))
                claims = claims.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                claims += String(repeating: "=", count: (4 - claims.count % 4) % 4)
                let data = try #require(Data(base64Encoded: claims))
                let sid = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["sid"] as? String)
                return try await api.call(.get, "/internal/sessions/\(sid)").json["open"] as? Bool == true
            }
            #expect(try await sessionOpen(other))
            #expect(try await !sessionOpen(first), "reuse of a refresh token revoked its session")
            #expect(try await api.call(.get, "/internal/sessions/\(UUID())").json["open"] as? Bool == false)
            #expect(try await api.call(.post, "/auth/logout", json: #"{"refresh_token":"\#(otherRefresh)"}"#).status == .noContent)
            #expect(try await !sessionOpen(other))
            #expect(try await api.call(.post, "/auth/refresh", json: #"{"refresh_token":"\#(otherRefresh)"}"#).status == .unauthorized)
            #expect(
                try await api.call(.post, "/auth/logout", json: #"{"refresh_token":"\#(otherRefresh)"}"#).status == .noContent,
                "logout is idempotent"
            )
            #expect(try await api.call(.post, "/auth/logout", json: #"{"refresh_token":"not-a-token"}"#).status == .unauthorized)
        }
    }

    /// The auth document declares `http://opds-spec.org/auth/oauth/password`: a client that follows it sends RFC 6749's
    /// form-encoded grants to its `authenticate` and `refresh` links and reads RFC 6749 answers and errors.
    @Test func aClientSignsInAndRefreshesWithTheGrantsTheDocumentDeclares() async throws {
        try await app().testRouter { client in
            let api = PatronTestClient(client: client)
            func form(_ path: String, _ body: String, headers: HTTPFields = [:]) async throws -> PatronTestClient.Reply {
                var fields: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
                for field in headers { fields[field.name] = field.value }
                return try await api.call(.post, path, body: body, headers: fields)
            }
            let document = try await api.call(.get, "/auth/document").json
            let flows = try #require(document["authentication"] as? [[String: Any]])
            let oauth = try #require(flows.first { $0["type"] as? String == "http://opds-spec.org/auth/oauth/password" })
            let links = Dictionary(
                uniqueKeysWithValues: (oauth["links"] as? [[String: Any]] ?? []).map {
                    ($0["rel"] as! String, URL(string: $0["href"] as! String)!.path)
                }
            )
            let authenticate = try #require(links["authenticate"])
            let refresh = try #require(links["refresh"])

            _ = try await api.call(.post, "/auth/signup", json: #"{"username":"form.reader","email":"f@example.org","password":"Secret pass+1&"}"#)
            let signedIn = try await form(authenticate, "grant_type=password&username=form.reader&password=Secret%20pass%2B1%26")
            #expect(signedIn.status == .ok)
            #expect(signedIn.headers[.cacheControl] == "no-store")
            let tokens = try signedIn.decode(TokenResponse.self)
            #expect(tokens.tokenType == "Bearer" && !tokens.accessToken.isEmpty)
            let plus = try await form(authenticate, "grant_type=password&username=form.reader&password=Secret+pass%2B1%26")
            #expect(plus.status == .ok, "+ is a space in a form")

            let rotated = try await form(refresh, "grant_type=refresh_token&refresh_token=\(tokens.refreshToken)")
            #expect(rotated.status == .ok)
            #expect(rotated.headers[.cacheControl] == "no-store")
            let next = try rotated.decode(TokenResponse.self)
            #expect(next.refreshToken != tokens.refreshToken)
            // RFC 6749 has one token endpoint: either grant is accepted at either link.
            let viaAuthenticate = try await form(authenticate, "grant_type=refresh_token&refresh_token=\(next.refreshToken)")
            #expect(viaAuthenticate.status == .ok)

            // RFC 6749 5.2 errors, status 400, no problem documents, nothing stored.
            func expectError(
                _ reply: PatronTestClient.Reply,
                _ code: String,
                status: HTTPResponse.Status = .badRequest,
                sourceLocation: SourceLocation = #_sourceLocation
            ) {
                #expect(reply.status == status, sourceLocation: sourceLocation)
                #expect(reply.json["error"] as? String == code, sourceLocation: sourceLocation)
                #expect(reply.json["error_description"] is String, sourceLocation: sourceLocation)
                #expect(reply.headers[.cacheControl] == "no-store", sourceLocation: sourceLocation)
            }
            expectError(try await form(authenticate, "grant_type=password&username=form.reader&password=wrong"), "invalid_grant")
            expectError(try await form(authenticate, "grant_type=password&username=nobody.here&password=wrong"), "invalid_grant")
            expectError(try await form(refresh, "grant_type=refresh_token&refresh_token=\(tokens.refreshToken)"), "invalid_grant")
            expectError(try await form(refresh, "grant_type=refresh_token"), "invalid_request")
            expectError(try await form(authenticate, "grant_type=password&username=form.reader"), "invalid_request")
            expectError(try await form(authenticate, "grant_type=password&username=a&username=b&password=x"), "invalid_request")
            expectError(try await form(authenticate, "grant_type=client_credentials"), "unsupported_grant_type")
            expectError(try await form(authenticate, "grant_type=password&username=%zz&password=x"), "invalid_request")
            // The same grants as JSON, and today's forms, still work.
            let json = try await api.call(
                .post,
                authenticate,
                json: #"{"grant_type":"password","username":"form.reader","password":"Secret pass+1&"}"#
            )
            #expect(json.status == .ok)
            let basicWithGrant = try await form(authenticate, "grant_type=password", headers: basic("form.reader", "Secret pass+1&"))
            #expect(basicWithGrant.status == .ok, "credentials left out of the body are taken from Basic")
            let notJSON = try await api.call(.post, refresh, body: "refresh", headers: [.contentType: "text/plain"])
            #expect(notJSON.status == .badRequest)
        }
    }

    @Test func onePatronCannotSeeOrChangeAnothersProfileOrSettings() async throws {
        try await app().testRouter { client in
            let api = PatronTestClient(client: client)
            let ann = try await api.newPatron()
            let bob = try await api.newPatron()
            #expect(
                try await api.call(
                    .put,
                    "/me/settings",
                    patron: ann,
                    json: #"{"fontFamily":"sans-serif","fontSize":150,"theme":"night","brightness":0.5,"syncBookmarks":true}"#
                ).status == .ok
            )
            #expect(
                try await api.call(
                    .put,
                    "/me/settings",
                    patron: ann,
                    json: #"{"fontFamily":"comic","fontSize":150,"theme":"night","brightness":0.5,"syncBookmarks":true}"#
                ).status == .badRequest
            )
            #expect(
                try await api.call(
                    .put,
                    "/me/settings",
                    patron: ann,
                    json: #"{"fontFamily":"serif","fontSize":150,"theme":"night","brightness":0.5,"syncBookmarks":true,"x":1}"#
                ).status == .badRequest
            )
            let bobs = try await api.call(.get, "/me/settings", patron: bob).decode(ReaderSettings.self)
            #expect(bobs == ReaderSettings())
            _ = try await api.call(.patch, "/me", patron: ann, json: #"{"displayName":"Ann"}"#)
            let bobProfile = try await api.call(.get, "/me", patron: bob)
            #expect(bobProfile.json["displayName"] as? String != "Ann")
            #expect((bobProfile.json["id"] as? String)?.lowercased() == bob.uuidString.lowercased())
            // Without the service token the patron header is not believed.
            let spoofed = try await client.execute(uri: "/me", method: .get, headers: [.patronID: ann.uuidString]) { $0.status }
            #expect(spoofed == .unauthorized)
            // With the service token but without the gateway's fresh signature for that patron, it is not believed either.
            let identity = PatronIdentity(secret: TestConfig.jwtSecret)
            let stranger = PatronIdentity(secret: "another-jwt-secret-0123456789abcdef0123")
            let forgeries: [(String, String?)] = [
                ("no signature", nil), ("another patron's", identity.signature(for: bob)),
                ("expired", identity.signature(for: ann, now: Date().addingTimeInterval(-PatronIdentity.lifetime - 1))),
                ("too far ahead", identity.signature(for: ann, now: Date().addingTimeInterval(3600))),
                ("another key's", stranger.signature(for: ann)), ("garbage", "9999999999.zz"),
            ]
            for (what, signature) in forgeries {
                var headers: HTTPFields = [.serviceToken: TestConfig.serviceToken, .patronID: ann.uuidString.lowercased()]
                if let signature { headers[.patronSignature] = signature }
                let status = try await client.execute(uri: "/me", method: .get, headers: headers) { $0.status }
                #expect(status == .unauthorized, "\(what): \(status)")
            }
            let signed: HTTPFields = [
                .serviceToken: TestConfig.serviceToken, .patronID: ann.uuidString.lowercased(), .patronSignature: identity.signature(for: ann),
            ]
            let believed = try await client.execute(uri: "/me", method: .get, headers: signed) { $0.status }
            #expect(believed == .ok)
            let profile = try await api.call(.get, "/me", patron: ann, headers: [.accept: "application/opds-profile+json"])
            #expect((profile.json["loans"] as? [String: Any])?["total"] as? Int == 10)
        }
    }

    @Test func deletingTheAccountLeavesNoRowBehind() async throws {
        try await app().testRouter { client in
            let api = PatronTestClient(client: client)
            let ann = try await api.newPatron()
            let book = UUID()
            try await api.license(book, copies: 1)
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: ann).status == .created)
            #expect(try await api.call(.put, "/me/books/\(book)/rating", patron: ann, json: #"{"stars":4}"#).status == .ok)
            #expect(try await api.call(.delete, "/me", patron: ann).status == .noContent)
            #expect(try await api.call(.get, "/me", patron: ann).status == .unauthorized)
            // A gateway may still hold the deleted account's token: a change finds nobody, a read finds nothing.
            #expect(try await api.call(.put, "/me/books/\(book)/rating", patron: ann, json: #"{"stars":5}"#).status == .unauthorized)
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: ann).status == .unauthorized)
            // Circulation finds the patron in its own transaction (no query before it): every change of it, too.
            for (method, action) in [
                (HTTPRequest.Method.post, "return"), (.post, "hold"), (.put, "saved"), (.delete, "saved"), (.post, "renew"),
                (.post, "resume"), (.put, "ignored"), (.delete, "ignored"),
            ] {
                #expect(try await api.call(method, "/me/books/\(book)/\(action)", patron: ann).status == .unauthorized, "\(action)")
            }
            let event = try await api.call(.post, "/me/books/\(book)/events", patron: ann, json: #"{"event": "download_completed"}"#)
            #expect(event.status == .unauthorized)
            let shelf = try await api.call(.get, "/me/books", patron: ann)
            #expect(shelf.status == .ok && !String(decoding: shelf.body, as: UTF8.self).contains(book.uuidString.lowercased()))
            let bob = try await api.newPatron()
            #expect(try await api.call(.post, "/me/books/\(book)/borrow", patron: bob).status == .created)
        }
    }

    @Test func internalRoutesRefuseAMissingOrWrongToken() async throws {
        try await app().testRouter { client in
            let missing = try await client.execute(uri: "/internal/patrons/\(UUID())/shelf", method: .get) { $0.status }
            #expect(missing == .unauthorized)
            let wrong = try await client.execute(uri: "/internal/patrons/\(UUID())/shelf", method: .get, headers: [.serviceToken: "nope"]) {
                $0.status
            }
            #expect(wrong == .unauthorized)
            let right = try await client.execute(
                uri: "/internal/patrons/\(UUID())/shelf",
                method: .get,
                headers: [.serviceToken: TestConfig.serviceToken]
            ) {
                $0.status
            }
            #expect(right == .ok)
        }
    }
}

/// The Authentication for OPDS document links only what exists: the logo and help page when the library set them.
@Suite struct AuthDocumentTests {
    func links(_ document: AuthDocument) -> [String: String] {
        Dictionary(document.links.map { ($0.rel, $0.href) }, uniquingKeysWith: { first, _ in first })
    }

    @Test func logoAndHelpAreLinkedOnlyWhenConfigured() async throws {
        let bare = AuthDocument(publicURL: "https://library.example")
        #expect(links(bare)["logo"] == nil)
        #expect(links(bare)["help"] == nil)
        #expect(links(bare)["http://opds-spec.org/shelf"] == "https://library.example/me/books")

        let branded = AuthDocument(
            publicURL: "https://library.example",
            logoURL: "https://cdn.example/logo.png",
            helpURL: "https://library.example/help.html"
        )
        #expect(links(branded)["logo"] == "https://cdn.example/logo.png")
        #expect(links(branded)["help"] == "https://library.example/help.html")
        // With single sign-on and no sign-up: the implicit flow's authenticate link, no register link.
        let singleSignOn = AuthDocument(publicURL: "https://library.example", offersSignUp: false, singleSignOn: "Sign in with your school account")
        #expect(links(singleSignOn)["register"] == nil && links(bare)["register"] != nil)
        let flow = singleSignOn.authentication.first { $0.type == "http://opds-spec.org/auth/oauth/implicit" }
        #expect(flow?.description == "Sign in with your school account")
        #expect(flow?.links?.first?.rel == "authenticate" && flow?.links?.first?.href == "https://library.example/auth/oidc/authorize")
        for document in [bare, branded, singleSignOn] {
            #expect(try await OPDSValidator.problems(in: JSONEncoder().encode(document), kind: "auth") == nil)
        }
    }
}

/// RFC 6749 error objects for refusals that have no case in the router test.
@Suite struct OAuthErrorTests {
    @Test func aThrottledGrantKeeps429AndRetryAfterWithAnOAuthErrorObject() throws {
        let error = OAuthError(AuthError.throttled(scope: .login, until: Date().addingTimeInterval(30), retryAfter: 30))
        let response = try error.response()
        #expect(response.status == .tooManyRequests)
        #expect(response.headers[.retryAfter] == "30" && response.headers[.cacheControl] == "no-store")
        #expect(error.code == "invalid_grant" && error.description.contains("30 s"))
        #expect(OAuthError(.refreshTokenReused).status == 400 && OAuthError(.refreshTokenReused).code == "invalid_grant")
    }
}
