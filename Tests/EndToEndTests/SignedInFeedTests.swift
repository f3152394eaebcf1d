import Foundation
import Shared
import TestSupport
import Testing

/// Signed-in pages come from the shared page and catalog's copy of each patron's shelf (asking patron only after a change): every
/// patron sees their own state and nobody else's, each change shows on the very next page load through any catalog
/// replica, and the ETag follows the shelf.
@Suite struct SignedInFeedTests {
    func entry(_ feed: [String: Any], _ book: String) -> [String: Any]? {
        (feed["publications"] as? [[String: Any]])?.first { publication in
            links(publication).contains { $0.rel == "self" && $0.href.hasSuffix("/opds/books/\(book)") }
        }
    }

    func rels(_ publication: [String: Any]?) -> Set<String> { Set(links(publication ?? [:]).map(\.rel)) }

    func availability(_ publication: [String: Any]?) -> String? {
        for link in (publication?["links"] as? [[String: Any]]) ?? [] {
            if let state = ((link["properties"] as? [String: Any])?["availability"] as? [String: Any])?["state"] as? String { return state }
        }
        return nil
    }

    @Test func eachPatronSeesTheirOwnStateAndEveryChangeShowsOnTheNextPage() async throws {
        try await Stack.run(["SHELF_PUBLISH_INTERVAL": "60s"], catalogReplicas: 2) { stack in
            let api = stack.gateway
            var ids: [String] = []
            for file in await Stack.corpus.prefix(5) { ids.append(try await stack.ingest(file, copies: 1)) }
            let (_, annToken) = try await stack.signUp(pin: "1111")
            let (bobCard, bobToken) = try await stack.signUp(pin: "2222")
            let ann = GatewayClient.Credentials.bearer(annToken)
            let bob = GatewayClient.Credentials.bearer(bobToken)
            for id in ids { try await stack.waitForLicence(id, token: annToken) }
            let lane = "/opds/lanes/new?size=50"
            func page(_ who: GatewayClient.Credentials?) async throws -> [String: Any] {
                try await stack.fetchValid(lane, kind: "feed", json: true, as: who).json
            }
            let full = publicationIDs(try await page(nil)).count

            // Every change below is checked on the very next load, alternating catalog replicas by round robin;
            // the timed background pass is slowed to a minute, so only the reading catalog asks of patron can show it.
            #expect(try await api.call(.POST, "/me/books/\(ids[0])/borrow", as: ann).status == 201)
            for _ in 0..<2 { #expect(rels(entry(try await page(ann), ids[0])).contains("http://opds-spec.org/acquisition"), "borrow shows") }
            #expect(!rels(entry(try await page(bob), ids[0])).contains("http://opds-spec.org/acquisition"), "not Ann's loan for Bob")
            #expect(try await api.call(.POST, "/me/books/\(ids[0])/hold", as: .basic(bobCard, "2222")).status == 201)
            for _ in 0..<2 {
                #expect(availability(entry(try await page(bob), ids[0])) == "reserved", "hold shows")
                #expect(availability(entry(try await page(ann), ids[0])) == "available", "Ann still has it on loan")
            }
            // Bob suspends the hold: his entry offers to resume it; he resumes before Ann returns the book.
            let tomorrow = WireFormat.formatDate(Date().addingTimeInterval(86_400))
            #expect(try await api.call(.POST, "/me/books/\(ids[0])/suspend", as: bob, json: #"{"until": "\#(tomorrow)"}"#).status == 200)
            for _ in 0..<2 { #expect(rels(entry(try await page(bob), ids[0])).contains("urn:x-bookmobile:rel/resume-hold"), "suspension shows") }
            #expect(try await api.call(.POST, "/me/books/\(ids[0])/resume", as: bob).status == 200)
            for _ in 0..<2 { #expect(rels(entry(try await page(bob), ids[0])).contains("urn:x-bookmobile:rel/suspend-hold"), "resumption shows") }
            #expect((200..<300).contains(try await api.call(.PUT, "/me/books/\(ids[2])/saved", as: ann).status))
            for _ in 0..<2 { #expect(rels(entry(try await page(ann), ids[2])).contains("http://opds-spec.org/acquisition/borrow")) }
            #expect((200..<300).contains(try await api.call(.PUT, "/me/books/\(ids[3])/ignored", as: ann).status))
            for _ in 0..<2 {
                let mine = publicationIDs(try await page(ann))
                #expect(!mine.contains(ids[3]) && mine.count == full - 1, "ignored is absent, the rest stays")
                #expect(publicationIDs(try await page(bob)).contains(ids[3]), "Bob still sees it")
            }
            #expect((200..<300).contains(try await api.call(.POST, "/me/books/\(ids[0])/return", as: ann).status))
            for _ in 0..<2 { #expect(!rels(entry(try await page(ann), ids[0])).contains("http://opds-spec.org/acquisition"), "return shows") }
            // Bob's offer is a change Bob did not make: the pass that Ann's return asked for publishes it.
            try await eventually(timeout: .seconds(15), "Bob's offer shows") { availability(entry(try await page(bob), ids[0])) == "ready" }
        }
    }

    /// Each gateway answers a signed-in page from the shared page it holds, joined with what it knows of the patron's
    /// shelf: through two gateways in front of two catalog replicas, a patron whose shelf touches none of the page's
    /// books gets the shared bytes under the same ETag from either; a patron's loan or ignored book shows on their own
    /// next page through the gateway they used and soon through the other, and never on anyone else's page.
    /// Where two pages part, for a failure's message.
    static func difference(_ one: String, _ other: String) -> String {
        let (a, b) = (Array(one), Array(other))
        guard let at = (0..<min(a.count, b.count)).first(where: { a[$0] != b[$0] }) else { return "the same text up to the shorter one's end" }
        let from = max(0, at - 80)
        return "at \(at): …\(String(a[from..<min(a.count, at + 80)]))… against …\(String(b[from..<min(b.count, at + 80)]))…"
    }

    @Test func joinedPagesShowEachPatronTheirOwnStateThroughEitherGateway() async throws {
        try await Stack.run(["SHELF_PUBLISH_INTERVAL": "60s", "SHARED_PAGE_VERDICT_TTL": "1s"], catalogReplicas: 2, gateways: 2) { stack in
            var ids: [String] = []
            for file in await Stack.corpus.prefix(4) { ids.append(try await stack.ingest(file, copies: 1)) }
            let (_, annToken) = try await stack.signUp(pin: "1111")
            let (_, bobToken) = try await stack.signUp(pin: "2222")
            let ann = GatewayClient.Credentials.bearer(annToken)
            let bob = GatewayClient.Credentials.bearer(bobToken)
            for id in ids { try await stack.waitForLicence(id, token: annToken) }
            let lane = "/opds/lanes/new"
            let json = [("Accept", "application/opds+json")]
            let gateways = [stack.gateway, stack.secondGateway]
            func page(_ who: GatewayClient.Credentials?, through gateway: GatewayClient) async throws -> GatewayClient.Reply {
                let reply = try await gateway.call(.GET, lane, as: who, headers: json)
                #expect(reply.status == 200)
                #expect(reply.headers.first(name: "x-internal-page-books") == nil, "the page's books stay inside")
                return reply
            }

            #expect(try await stack.gateway.call(.POST, "/me/books/\(ids[0])/borrow", as: ann).status == 201)
            #expect(rels(entry(try await page(ann, through: stack.gateway).json, ids[0])).contains("http://opds-spec.org/acquisition"))
            #expect((200..<300).contains(try await stack.secondGateway.call(.PUT, "/me/books/\(ids[1])/ignored", as: ann).status))
            #expect(!publicationIDs(try await page(ann, through: stack.secondGateway).json).contains(ids[1]), "ignored, at once where it was")
            for gateway in gateways {
                try await eventually(timeout: .seconds(10), "Ann's loan and ignored book show through either gateway") {
                    let mine = try await page(ann, through: gateway).json
                    return rels(entry(mine, ids[0])).contains("http://opds-spec.org/acquisition") && !publicationIDs(mine).contains(ids[1])
                }
            }
            // Ann's loan took the book's only copy, which the shared page shows: until every cache in front of either
            // catalog holds a copy made after it, two pages may differ by that alone (a catalog replica that did not
            // hear of the loan keeps its page for up to FEED_CACHE_TTL and its stale time, and a gateway's copy may
            // come from either replica). Bob's page is the shared page, the same bytes and ETag through either
            // gateway once they hold the same page; and at every moment nothing of Ann's is on it.
            var seen = ""
            try await eventually(timeout: .seconds(40), "Bob's page is the shared page under one ETag through either gateway: \(seen)") {
                var etags: Set<String> = []
                var same = true
                for gateway in gateways {
                    for _ in 0..<2 {
                        let bobs = try await page(bob, through: gateway)
                        let shared = try await page(nil, through: gateway)
                        #expect(!rels(entry(bobs.json, ids[0])).contains("http://opds-spec.org/acquisition"), "not Ann's loan")
                        #expect(publicationIDs(bobs.json).contains(ids[1]), "Ann's ignored book is still Bob's")
                        #expect(bobs.headers.first(name: "cache-control")?.hasPrefix("private") == true)
                        if bobs.body != shared.body { seen = Self.difference(bobs.text, shared.text) }
                        same = same && bobs.body == shared.body
                        etags.insert(try #require(bobs.headers.first(name: "etag")))
                    }
                }
                if etags.count > 1 { seen += " ETags \(etags)" }
                return same && etags.count == 1
            }
        }
    }

    @Test func theETagFollowsThePatronsShelfAndNothingElse() async throws {
        try await Stack.run { stack in
            let api = stack.gateway
            var ids: [String] = []
            for file in await Stack.corpus.prefix(2) { ids.append(try await stack.ingest(file, copies: 3)) }
            let (_, token) = try await stack.signUp()
            let ann = GatewayClient.Credentials.bearer(token)
            for id in ids { try await stack.waitForLicence(id, token: token) }
            let lane = "/opds/lanes/new"
            let first = try await api.call(.GET, lane, as: ann)
            let etag = try #require(first.headers.first(name: "etag"))
            #expect(first.headers.first(name: "cache-control")?.hasPrefix("private") == true)
            let anonymous = try await api.call(.GET, lane)
            #expect(etag != anonymous.headers.first(name: "etag"), "a patron's ETag is not the shared one")
            #expect(first.body == anonymous.body, "a page with none of the patron's books is the shared page")
            #expect(try await api.call(.GET, lane, as: ann, headers: [("If-None-Match", etag)]).status == 304)
            #expect(try await api.call(.GET, lane, as: ann).headers.first(name: "etag") == etag, "no change, same ETag")
            #expect(try await api.call(.POST, "/me/books/\(ids[0])/borrow", as: ann).status == 201)
            let after = try await api.call(.GET, lane, as: ann, headers: [("If-None-Match", etag)])
            #expect(after.status == 200, "the shelf changed: the page is sent again")
            #expect(after.headers.first(name: "etag") != etag)
        }
    }
}

extension SignedInFeedTests {
    /// A patron's page that shows a book they borrow is made from the rows the shared page was made from, unless a book
    /// they hide would change it: the book after a lane's page (it decides the next link), or a search match that a
    /// count cannot take off (the book after the page). Either way it is the page the patron's own reading gives:
    /// hidden matches off the page are not counted. A saved book leaves the page shared.
    @Test func aPatronsPageFromTheSharedRowsIsThePageTheirOwnReadingGives() async throws {
        try await Stack.run { stack in
            let api = stack.gateway
            var ids: [String] = []
            for file in await Stack.corpus.prefix(7) { ids.append(try await stack.ingest(file, copies: 2)) }
            let (_, annToken) = try await stack.signUp(pin: "1111")
            let (_, bobToken) = try await stack.signUp(pin: "2222")
            let ann = GatewayClient.Credentials.bearer(annToken)
            let bob = GatewayClient.Credentials.bearer(bobToken)
            for id in ids { try await stack.waitForLicence(id, token: annToken) }
            let json = [("Accept", "application/opds+json")]
            func feed(_ path: String, _ who: GatewayClient.Credentials?) async throws -> GatewayClient.Reply {
                let reply = try await api.call(.GET, path, as: who, headers: json)
                #expect(reply.status == 200, "\(path): \(reply.status)")
                return reply
            }
            func hasNext(_ feed: [String: Any]) -> Bool { links(feed).contains { $0.rel == "next" } }
            func total(_ feed: [String: Any]) -> Int? { (feed["metadata"] as? [String: Any])?["numberOfItems"] as? Int }

            // The newest lane six at a time: its first page, and the one book after it.
            let lane = "/opds/lanes/new?size=6"
            let shared = try await feed(lane, nil)
            let onPage = publicationIDs(shared.json)
            #expect(onPage.count == 6 && hasNext(shared.json))
            let after = try #require(Set(ids).subtracting(onPage).first)
            #expect((200..<300).contains(try await api.call(.PUT, "/me/books/\(onPage[0])/saved", as: ann).status))
            let saved = try await feed(lane, ann)
            #expect(saved.body == (try await feed(lane, nil)).body, "a saved book shows as it does to everyone: the shared page")
            #expect(saved.headers.first(name: "etag")?.hasSuffix(try #require(shared.headers.first(name: "etag")).dropFirst()) == true)
            #expect(try await api.call(.POST, "/me/books/\(onPage[0])/borrow", as: ann).status == 201)
            let borrowed = try await feed(lane, ann).json
            #expect(publicationIDs(borrowed) == onPage && hasNext(borrowed), "the same books, and more after them")
            #expect(rels(entry(borrowed, onPage[0])).contains("http://opds-spec.org/acquisition"), "the loan shows")
            #expect((200..<300).contains(try await api.call(.PUT, "/me/books/\(after)/ignored", as: ann).status))
            let hiding = try await feed(lane, ann).json
            #expect(publicationIDs(hiding) == onPage && !hasNext(hiding), "the book after the page is hidden: no next page")
            #expect(rels(entry(hiding, onPage[0])).contains("http://opds-spec.org/acquisition"))

            // A search by the letter most titles have, a book at a time: the books whose titles have it match.
            var titles: [String: String] = [:]
            for id in ids {
                let publication = try await feed("/opds/books/\(id)", nil).json
                titles[id] = try #require((publication["metadata"] as? [String: Any])?["title"] as? String).lowercased()
            }
            let letter = try #require(
                "abcdefghijklmnopqrstuvwxyz".max { a, b in
                    titles.values.filter { $0.contains(a) }.count < titles.values.filter { $0.contains(b) }.count
                }
            )
            let matches = ids.filter { titles[$0]?.contains(letter) == true }
            try #require(matches.count >= 6, "six of the books' titles share a letter: \(titles.values.sorted())")
            let search = "/opds/search?title=\(letter)&size=1"
            let everyone = try await feed(search, nil).json
            #expect(total(everyone) == matches.count)
            let firstTwo = publicationIDs(try await feed("/opds/search?title=\(letter)&size=2", nil).json)
            let (first, second) = (try #require(firstTwo.first), try #require(firstTwo.last))
            #expect(try await api.call(.POST, "/me/books/\(first)/borrow", as: bob).status == 201)
            let bobs = try await feed(search, bob).json
            #expect(publicationIDs(bobs) == [first] && total(bobs) == matches.count, "Bob hides nothing: everyone's results")
            #expect(rels(entry(bobs, first)).contains("http://opds-spec.org/acquisition"), "with his loan")
            let farther = try #require(matches.first { $0 != first && $0 != second })
            #expect((200..<300).contains(try await api.call(.PUT, "/me/books/\(farther)/ignored", as: bob).status))
            let hidingFarther = try await feed(search, bob).json
            #expect(publicationIDs(hidingFarther) == [first] && total(hidingFarther) == matches.count - 1, "a hidden match is not counted")
            #expect(rels(entry(hidingFarther, first)).contains("http://opds-spec.org/acquisition"))
            #expect((200..<300).contains(try await api.call(.PUT, "/me/books/\(second)/ignored", as: bob).status))
            let hidingNext = try await feed(search, bob).json
            #expect(publicationIDs(hidingNext) == [first] && total(hidingNext) == matches.count - 2)
            let nextLink = try #require(links(hidingNext).first { $0.rel == "next" }?.href)
            let next = try #require(URLComponents(string: nextLink))
            let page2 = try await feed("\(next.path)?\(next.percentEncodedQuery ?? "")", bob).json
            #expect(!publicationIDs(page2).contains(second) && !publicationIDs(page2).contains(farther), "hidden on the next page too")
        }
    }
}

/// A changed PIN and ended sessions take effect at the gateway at once, whatever its caches remember.
@Suite struct CredentialChangeEndToEndTests {
    @Test func aChangedPinAndRevokedSessionsStopWorkingAtTheGatewayAtOnce() async throws {
        try await Stack.run(["BASIC_AUTH_CACHE_TTL": "120s", "SESSION_CHECK_TTL": "120s"]) { stack in
            let api = stack.gateway
            let (barcode, token) = try await stack.signUp(pin: "1357")
            #expect(try await api.call(.GET, "/me", as: .basic(barcode, "1357")).status == 200, "the verdict is now cached")
            #expect(try await api.call(.GET, "/me", as: .bearer(token)).status == 200, "the session answer too")
            let changed = try await api.call(.PUT, "/me/password", as: .basic(barcode, "1357"), json: #"{"current":"1357","new":"2468"}"#)
            // With the services' logs: once, at a full run's busiest, this was a 504 (patron did not answer within 10 s).
            #expect(changed.status == 204, "\(changed.text)\n\(stack.logTails())")
            #expect(try await api.call(.GET, "/me", as: .basic(barcode, "1357")).status == 401, "the old PIN stops at once")
            #expect(try await api.call(.GET, "/me", as: .basic(barcode, "2468")).status == 200)
            #expect(try await api.call(.GET, "/me", as: .bearer(token)).status == 401, "the other sessions ended with the change")

            let fresh = try #require(try await api.call(.POST, "/auth/token", as: .basic(barcode, "2468")).json["access_token"] as? String)
            #expect(try await api.call(.GET, "/me", as: .bearer(fresh)).status == 200)
            #expect(try await api.call(.POST, "/me/sessions/revoke-all", as: .bearer(fresh)).status == 200)
            #expect(try await api.call(.GET, "/me", as: .bearer(fresh)).status == 401, "revoked sessions stop at once")
        }
    }

    /// Patron marks a sign-out and a secret change (`X-Internal-Credentials-Changed`), so the gateway forgets its
    /// verdicts whatever the path looked like: `/me/password/` reaches the same handler as `/me/password` (`/me//password`
    /// did too, until the gateway refused empty segments).
    @Test func signingOutAndEveryPathOfAPasswordChangeEndTheGatewaysVerdictAtOnce() async throws {
        try await Stack.run(["BASIC_AUTH_CACHE_TTL": "120s", "SESSION_CHECK_TTL": "120s"]) { stack in
            let api = stack.gateway
            let (barcode, _) = try await stack.signUp(pin: "1357")
            let grant = try await api.call(.POST, "/auth/token", as: .basic(barcode, "1357"))
            let access = try #require(grant.json["access_token"] as? String)
            let refresh = try #require(grant.json["refresh_token"] as? String)
            #expect(try await api.call(.GET, "/me", as: .bearer(access)).status == 200, "the session answer is now cached")
            let out = try await api.call(.POST, "/auth/logout", json: #"{"refresh_token": "\#(refresh)"}"#)
            #expect(out.status == 204, "\(out.text)")
            #expect(out.headers.first(name: "x-internal-credentials-changed") == nil, "never passed on")
            #expect(try await api.call(.GET, "/me", as: .bearer(access)).status == 401, "signed out: the token stops at once")

            var pin = "1357"
            var changedThrough: [String] = []
            for (index, path) in ["/me//password", "/me/password/", "//me/password", "/me/./password"].enumerated() {
                #expect(try await api.call(.GET, "/me", as: .basic(barcode, pin)).status == 200, "the verdict is cached")
                let next = "24\(60 + index)"
                let changed = try await api.call(.PUT, path, as: .basic(barcode, pin), json: #"{"current":"\#(pin)","new":"\#(next)"}"#)
                guard changed.status == 204 else {
                    #expect(changed.status == 404 || changed.status == 400, "\(path): \(changed.status)")
                    continue
                }
                changedThrough.append(path)
                #expect(try await api.call(.GET, "/me", as: .basic(barcode, pin)).status == 401, "\(path): the old PIN stops at once")
                pin = next
                #expect(try await api.call(.GET, "/me", as: .basic(barcode, pin)).status == 200)
            }
            // The gateway now refuses empty and dot segments (`PathShape`); a trailing slash still reaches the handler.
            #expect(changedThrough == ["/me/password/"], "\(changedThrough)")
        }
    }

    /// A Basic verdict is kept for `BASIC_AUTH_CACHE_TTL` (no bcrypt per request, nor per `SESSION_CHECK_TTL`), yet a
    /// PIN changed where this gateway did not see it (another replica; here the database) stops the old PIN within
    /// `SESSION_CHECK_TTL`, as a revoked session does.
    @Test func aKeptBasicVerdictNeedsNoBcryptYetAPinChangedElsewhereStopsWithinTheSessionCheck() async throws {
        try await Stack.run(["BASIC_AUTH_CACHE_TTL": "120s", "SESSION_CHECK_TTL": "1s"]) { stack in
            let api = stack.gateway
            let (barcode, _) = try await stack.signUp(pin: "1357")
            let (other, _) = try await stack.signUp(pin: "2468")
            #expect(try await api.call(.GET, "/me", as: .basic(barcode, "1357")).status == 200)
            let checked = try await stack.sql("patron", "SELECT last_login_at FROM patrons WHERE barcode = '\(barcode)'")
            try await Task.sleep(for: .milliseconds(1_300))  // past SESSION_CHECK_TTL: the secret's stamp is asked again
            #expect(try await api.call(.GET, "/me", as: .basic(barcode, "1357")).status == 200)
            #expect(
                try await stack.sql("patron", "SELECT last_login_at FROM patrons WHERE barcode = '\(barcode)'") == checked,
                "the credentials were not checked (bcrypt) again: the kept verdict stood on its stamp"
            )

            // The PIN becomes 2468 behind this gateway's back.
            _ = try await stack.sql(
                "patron",
                "UPDATE patrons SET secret_hash = (SELECT secret_hash FROM patrons WHERE barcode = '\(other)') WHERE barcode = '\(barcode)'"
            )
            try await Task.sleep(for: .milliseconds(1_300))
            #expect(try await api.call(.GET, "/me", as: .basic(barcode, "1357")).status == 401, "the old PIN stopped")
            #expect(try await api.call(.GET, "/me", as: .basic(barcode, "2468")).status == 200, "the new one works")
        }
    }

    /// A session revoked behind the gateway's back while its patron keeps browsing stops through a renewal of the
    /// gateway's answer, asked of patron in a batch: each request comes within the answer's lifetime, so it never
    /// expires, and only the background renewal can bring the news. The patron browses from before the revocation, a
    /// request every 200 ms: on two loaded cores a request through the stack, or the revocation's `psql`, took seconds
    /// at times, the answer expired in that gap, and a first check brought the news instead.
    @Test func aSessionRevokedWhileItsPatronBrowsesStopsThroughABatchedRenewal() async throws {
        try await Stack.run(["SESSION_CHECK_TTL": "10s"]) { stack in
            let (_, token) = try await stack.signUp(pin: "1357")
            let me = GatewayClient.Credentials.bearer(token)
            #expect(try await stack.gateway.call(.GET, "/me", as: me).status == 200)
            let gateway = stack.gateway
            let browsing = Task {
                var status = 200
                let started = ContinuousClock.now
                while status == 200, ContinuousClock.now - started < .seconds(90) {
                    try await Task.sleep(for: .milliseconds(200))
                    status = try await gateway.call(.GET, "/me", as: me).status
                }
                return status
            }
            _ = try await stack.sql("patron", "UPDATE sessions SET revoked_at = now()")
            let status = try await browsing.value
            #expect(status == 401, "refused once the renewed answer came")
            let patron = GatewayClient(base: "http://127.0.0.1:\(stack.ports[.patron]!)")
            let metrics = String(decoding: try await patron.call(.GET, "/metrics").body, as: UTF8.self)
            #expect(metrics.contains("/internal/sessions/statuses"), "renewed through the batched route")
        }
    }
}
