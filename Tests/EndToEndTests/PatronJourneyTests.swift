import Foundation
import TestSupport
import Testing

/// A patron's and an operator's day, through the gateway of the three real executables.
@Suite(.serialized) struct PatronJourneyTests {
    @Test func browseBorrowReadReturnAndTheNextPatronGetsTheOffer() async throws {
        try await Stack.run { stack in try await journey(stack) }
    }

    func journey(_ stack: Stack) async throws {
        let api = stack.gateway
        let books = Array(await Stack.corpus.prefix(6))
        try #require(books.count == 6, "the corpus in ../shared/epubs is missing")
        var ids: [String] = []
        for book in books { ids.append(try await stack.ingest(book)) }
        let (book, file) = (ids[0], books[0])

        // Signing up and signing in: username and password, then HTTP Basic, then a bearer token.
        try await stack.fetchValid("/auth/document", kind: "auth")
        let signup = try await api.call(
            .POST,
            "/auth/signup",
            json: #"{"username": "ann", "email": "ann@example.org", "password": "correct horse battery"}"#
        )
        #expect(signup.status == 201, "\(signup.text)")
        let basic = GatewayClient.Credentials.basic("ann", "correct horse battery")
        let tokenReply = try await api.call(.POST, "/auth/token", as: basic)
        let token = try #require(tokenReply.json["access_token"] as? String, "\(tokenReply.text)")
        let ann = GatewayClient.Credentials.bearer(token)
        #expect(try await api.call(.GET, "/me", as: basic).status == 200)
        #expect(try await api.call(.GET, "/me", as: ann).json["barcode"] != nil)
        #expect(try await api.call(.GET, "/me", as: .basic("ann", "wrong")).status == 401)
        // Signing out of a second session ends its access token too (within SESSION_CHECK_TTL, 1 s here), not only
        // its refresh token; the first session goes on.
        let second = try await api.call(.POST, "/auth/token", as: basic).json
        let secondToken = GatewayClient.Credentials.bearer(try #require(second["access_token"] as? String))
        #expect(try await api.call(.GET, "/me", as: secondToken).status == 200)
        let refresh = try #require(second["refresh_token"] as? String)
        #expect(try await api.call(.POST, "/auth/logout", json: #"{"refresh_token": "\#(refresh)"}"#).status == 204)
        try await eventually("a signed-out session's access token still works") { try await api.call(.GET, "/me", as: secondToken).status == 401 }
        #expect(try await api.call(.GET, "/me", as: ann).status == 200)

        // Browsing: root → groups → a lane → its next page, in both OPDS versions.
        try await stack.fetchValid("/opds", kind: "atom")
        let root = try await stack.fetchValid("/opds", kind: "feed", json: true).json
        let groupsLink = try #require(
            links(root, key: "navigation").first { $0.href.contains("/opds/groups") }?.href
                ?? links(root).first { $0.href.contains("/opds/groups") }?.href
        )
        try await stack.fetchValid(groupsLink, kind: "atom")
        let groups = try await stack.fetchValid(groupsLink, kind: "feed", json: true).json
        let firstGroup = try #require((groups["groups"] as? [[String: Any]])?.first)
        let laneLink = try #require(links(firstGroup).first?.href)
        let pageOne = try await stack.fetchValid(laneLink + (laneLink.contains("?") ? "&" : "?") + "size=4", kind: "feed", json: true).json
        try await stack.fetchValid(laneLink + (laneLink.contains("?") ? "&" : "?") + "size=4", kind: "atom")
        let next = try #require(links(pageOne).first { $0.rel == "next" }?.href, "a lane of 6 books in pages of 4 has a next page")
        let pageTwo = try await stack.fetchValid(next, kind: "feed", json: true).json
        try await stack.fetchValid(next, kind: "atom")
        #expect(Set(publicationIDs(pageOne)).isDisjoint(with: publicationIDs(pageTwo)))
        #expect(Set(publicationIDs(pageOne) + publicationIDs(pageTwo)) == Set(ids))

        // Searching and a book's detail.
        let title =
            try #require(
                try await api.call(.GET, "/opds/books/\(book)", headers: [("Accept", "application/opds+json")]).json["metadata"] as? [String: Any]
            )["title"] as? String
        let word = try #require(title?.split(separator: " ").max { $0.count < $1.count }).lowercased()
        let query = word.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? word
        let results = try await stack.fetchValid("/opds/search?q=\(query)", kind: "feed", json: true, as: ann).json
        #expect(publicationIDs(results).contains(book), "searching \(word)")
        try await stack.fetchValid("/opds/search?q=\(query)", kind: "atom", as: ann)
        #expect(try await api.call(.GET, "/opds/search").text.contains("OpenSearchDescription"))
        try await stack.fetchValid("/opds/books/\(book)", kind: "atom", as: ann)
        try await stack.fetchValid("/opds/books/\(book)", kind: "publication", json: true, as: ann)

        // Borrowing, downloading the very bytes that were ingested, reading, rating, returning.
        try await stack.waitForLicence(book, token: token)
        #expect(try await api.call(.GET, "/books/\(book)/fulfill").status == 401)
        let loan = try await api.call(.POST, "/me/books/\(book)/borrow", as: ann)
        #expect(loan.status == 201 && loan.json["state"] as? String == "not_downloaded", "\(loan.text)")
        #expect(try await api.call(.POST, "/me/books/\(book)/events", as: ann, json: #"{"event": "download_queued"}"#).status == 200)
        // The first bytes only (an app resuming later): started, not completed.
        #expect(try await api.call(.GET, "/books/\(book)/fulfill", as: ann, headers: [("Range", "bytes=0-99")]).status == 206)
        #expect(try await api.call(.GET, "/me/books/\(book)", as: ann).json["state"] as? String == "downloading")
        let download = try await api.call(.GET, "/books/\(book)/fulfill", as: ann)
        #expect(download.status == 200)
        #expect(download.body.sha256 == (try Data(contentsOf: file)).sha256)
        // Fulfilment reports the download (started, then completed with its last byte), as most OPDS apps never do;
        // the app's own report of it afterwards is a harmless repeat.
        try await eventually(timeout: .seconds(40), "the download was not recorded as completed") {
            try await api.call(.GET, "/me/books/\(book)", as: ann).json["state"] as? String == "download_completed"
        }
        for event in ["download_completed", "opened", "opened"] {
            let reply = try await api.call(.POST, "/me/books/\(book)/events", as: ann, json: #"{"event": "\#(event)"}"#)
            #expect(reply.status == 200, "\(event): \(reply.text)")
        }
        #expect(try await api.call(.GET, "/me/books/\(book)", as: ann).json["state"] as? String == "opened")
        let manifest = try await stack.fetchValid("/books/\(book)/manifest.json", kind: "manifest", json: true).json
        let chapter = try #require((manifest["readingOrder"] as? [[String: Any]])?.first?["href"] as? String)
        // The reading order is served from inside the archive, through the gateway, to the borrower.
        let page = try await api.call(.GET, chapter, as: ann)
        #expect(page.status == 200 && page.text.contains("<html"), "\(chapter): \(page.status)")
        #expect(try await api.call(.GET, chapter).status == 401)
        let bookmark = #"{"locator": {"href": "\#(chapter)", "locations": {"progression": 0.4}}, "chapter": "One", "device": "e2e"}"#
        let marked = try await api.call(.POST, "/me/books/\(book)/bookmarks", as: ann, json: bookmark)
        #expect(marked.status == 201, "\(marked.text)")
        let position =
            #"{"locator": {"href": "\#(chapter)", "locations": {"progression": 0.5}}, "timestamp": "2026-11-22T10:00:00Z", "device": "e2e"}"#
        #expect(try await api.call(.PUT, "/me/books/\(book)/position", as: ann, json: position).status == 200)
        #expect((try await api.call(.GET, "/me/books/\(book)/bookmarks", as: ann).json["bookmarks"] as? [Any])?.count == 1)
        let rating = try await api.call(.PUT, "/me/books/\(book)/rating", as: ann, json: #"{"stars": 4}"#)
        #expect((200..<300).contains(rating.status), "\(rating.text)")
        try await eventually(timeout: .seconds(40), "the rating never reached the catalog") {
            let publication = try await api.call(.GET, "/opds/books/\(book)", headers: [("Accept", "application/opds+json")]).json
            return ((publication["metadata"] as? [String: Any])?["rating"] as? [String: Any])?["count"] as? Int == 1
        }

        // A second patron waits for the only copy and is offered it when Ann returns it.
        let bob = GatewayClient.Credentials.bearer(try await stack.signUp().token)
        let refused = try await api.call(.POST, "/me/books/\(book)/borrow", as: bob)
        #expect(refused.status == 409 && refused.isProblem)
        #expect(try await api.call(.GET, chapter, as: bob).status == 403, "no loan, no pages")
        // The gateway holds the file since Ann's download; catalog still decides each one.
        #expect(try await api.call(.GET, "/books/\(book)/fulfill", as: bob).status == 403, "no loan, no file, whatever the gateway holds")
        let hold = try await api.call(.POST, "/me/books/\(book)/hold", as: bob)
        #expect(hold.status == 201 && hold.json["holdPosition"] as? Int == 1, "\(hold.text)")
        #expect(try await api.call(.POST, "/me/books/\(book)/return", as: ann).status == 200)
        #expect(try await api.call(.GET, "/me/books/\(book)", as: bob).json["state"] as? String == "loan_offered")
        let notices = (try await api.call(.GET, "/me/notifications", as: bob).json["notifications"] as? [[String: Any]]) ?? []
        #expect(notices.contains { $0["kind"] as? String == "loan_offered" })
        #expect(try await api.call(.POST, "/me/books/\(book)/accept", as: bob).json["state"] as? String == "not_downloaded")
        #expect(try await api.call(.GET, "/books/\(book)/fulfill", as: ann).status == 403, "returned: no file")
        // Bob's download is the gateway's copy (catalog said 304 to him), the same bytes, and it completes his download.
        let bobsCopy = try await api.call(.GET, "/books/\(book)/fulfill", as: bob)
        #expect(bobsCopy.status == 200)
        #expect(bobsCopy.body.sha256 == (try Data(contentsOf: file)).sha256)
        #expect(bobsCopy.headers.first(name: "age") == nil && bobsCopy.headers.first(name: "cache-control") == "private, no-store")
        try await eventually(timeout: .seconds(40), "Bob's download was not recorded as completed") {
            try await api.call(.GET, "/me/books/\(book)", as: bob).json["state"] as? String == "download_completed"
        }

        // The operator adds a book, and it leads "New arrivals".
        let newcomer = try await stack.ingest(Stack.corpus[6])
        let arrivals = try await stack.fetchValid("/opds/lanes/new", kind: "feed", json: true).json
        #expect(publicationIDs(arrivals).first == newcomer)
    }

    @Test func aClientsRequestIDReachesTheServicesLogs() async throws {
        try await Stack.run { stack in
            let (toCatalog, toPatron) = ("trace-c-\(UUID().uuidString.prefix(8))", "trace-p-\(UUID().uuidString.prefix(8))")
            let reply = try await stack.gateway.call(.GET, "/opds", headers: [("X-Request-ID", toCatalog)])
            #expect(reply.headers.first(name: "x-request-id") == toCatalog)
            #expect(try await stack.gateway.call(.GET, "/auth/document", headers: [("X-Request-ID", toPatron)]).status == 200)
            try await eventually("the request ids never reached the logs") {
                stack.log(.catalog).contains("request.id=\(toCatalog)") && stack.log(.patron).contains("request.id=\(toPatron)")
                    && stack.log(.gateway).contains("request.id=\(toCatalog)")
            }
        }
    }
}
