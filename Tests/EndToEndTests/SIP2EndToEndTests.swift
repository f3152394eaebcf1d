import Foundation
import TestSupport
import Testing

/// The library's own cards through the gateway, on the three real executables and a real SIP2 server on loopback
/// (`SIP2TestServer`): a patron signs in with card and PIN (tokens, and HTTP Basic on every request as OPDS apps do)
/// and borrows; a card the ILS blocks is told why when it borrows; a wrong PIN is a 401 the throttle counts; the ILS
/// stopped answers 503 with `Retry-After` for a card it has not vouched for lately, and sign-in works again once it is
/// back, with nothing restarted.
@Suite(.serialized) struct SIP2EndToEndTests {
    @Test func libraryCardsSignInThroughTheGatewayAndTheILSsWordStands() async throws {
        let ils = SIP2TestServer()
        try await ils.start()
        do {
            try await signIn(through: ils)
        } catch {
            await ils.stop()
            throw error
        }
        // Stopped before the test ends: a `defer`'s task may never run, and the server would outlive the test run.
        await ils.stop()
    }

    func signIn(through ils: SIP2TestServer) async throws {
        // Only the library's cards: no sign-up here.
        var settings = ils.configuration
        settings["PATRON_AUTH"] = "sip2"
        // Info: the exchanges' log lines are read below.
        settings["LOG_LEVEL"] = "info"
        try await Stack.run(settings) { stack in
            let api = stack.gateway
            let (valid, blocked) = (SIP2TestServer.valid, SIP2TestServer.blockedForFines)
            let book = try await stack.ingest(await TestTools.generatedBooks(count: 1, seed: 71)[0], copies: 2)

            let signUp = try await api.call(.POST, "/auth/signup", json: #"{"pin": "4321"}"#)
            #expect(signUp.status == 403 && signUp.isProblem, "\(signUp.text)")
            let document = try await api.call(.GET, "/auth/document")
            #expect(document.status == 200 && !document.text.contains("\"register\""))

            // Card and PIN for tokens, as the web app and Palace's apps sign in.
            let tokens = try await api.call(.POST, "/auth/token", as: .basic(valid.0, valid.1))
            #expect(tokens.status == 200, "\(tokens.text)")
            let token = try #require(tokens.json["access_token"] as? String)
            try await stack.waitForLicence(book, token: token)
            let me = try await api.call(.GET, "/me", as: .bearer(token))
            #expect(me.json["displayName"] as? String == "Ada Lovelace" && me.json["barcode"] as? String == valid.0)
            #expect(try await api.call(.POST, "/me/books/\(book)/borrow", as: .bearer(token)).status == 201)
            // HTTP Basic on every request, as OPDS apps send it: the same patron, the same shelf.
            let shelf = try await api.call(.GET, "/me/books", as: .basic(valid.0, valid.1))
            #expect(shelf.status == 200 && shelf.text.contains(book), "\(shelf.status)")

            // Blocked by the ILS: signed in, refused a loan with the ILS's reason.
            let blockedToken = try #require(
                try await api.call(.POST, "/auth/token", as: .basic(blocked.0, blocked.1)).json["access_token"] as? String
            )
            let refused = try await api.call(.POST, "/me/books/\(book)/borrow", as: .bearer(blockedToken))
            #expect(refused.status == 403 && (refused.json["type"] as? String)?.hasSuffix("patron-blocked") == true, "\(refused.text)")
            #expect((refused.json["detail"] as? String)?.contains("Fines over the limit: 25.00") == true)

            // A wrong PIN is a 401, through Basic and the token endpoint alike; the throttle counts them.
            let teen = SIP2TestServer.teen
            #expect(try await api.call(.GET, "/me", as: .basic(teen.0, "0000")).status == 401)
            for _ in 0..<4 { #expect(try await api.call(.POST, "/auth/token", as: .basic(teen.0, "0000")).status == 401) }
            let throttled = try await api.call(.POST, "/auth/token", as: .basic(teen.0, teen.1))
            #expect(throttled.status == 429 && throttled.headers.first(name: "retry-after") != nil, "\(throttled.status)")

            // The ILS stopped: a card it never vouched for is a 503 with Retry-After; once it is back, it signs in.
            await ils.stop()
            let child = SIP2TestServer.child
            let away = try await api.call(.POST, "/auth/token", as: .basic(child.0, child.1))
            #expect(away.status == 503 && away.headers.first(name: "retry-after") != nil, "\(away.status) \(away.text)")
            #expect((away.json["type"] as? String)?.hasSuffix("ils-unavailable") == true)
            #expect(try await api.call(.GET, "/me", as: .bearer(token)).status == 200, "a signed-in patron carries on")
            try await ils.start()
            try await eventually("sign-in did not come back with the ILS") {
                try await api.call(.POST, "/auth/token", as: .basic(child.0, child.1)).status == 200
            }
            // Every exchange is logged, with the card's last four digits, never the whole card or a PIN.
            let log = stack.log(.patron)
            #expect(log.contains("SIP2 patron check") && log.contains("…0001"), "the exchanges are logged")
            for (card, pin) in [valid, blocked, teen, child] {
                #expect(!log.contains(card) && !log.contains("AD\(pin)") && !log.contains("=\(pin) ") && !log.contains("\"\(pin)\""))
            }
        }
    }
}
