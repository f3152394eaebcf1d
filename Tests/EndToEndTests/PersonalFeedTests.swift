import Foundation
import TestSupport
import Testing

/// Feeds as a signed-in patron sees them: links for the patron's state, ignored books gone everywhere.
@Suite struct PersonalFeedTests {
    @Test func entriesCarryThePatronsLinksAndIgnoredBooksDisappear() async throws {
        try await Stack.run { stack in
            let api = stack.gateway
            var ids: [String] = []
            for file in await Stack.corpus.prefix(3) { ids.append(try await stack.ingest(file)) }
            let (_, token) = try await stack.signUp()
            let ann = GatewayClient.Credentials.bearer(token)
            try await stack.waitForLicence(ids[2], token: token)
            #expect(try await api.call(.POST, "/me/books/\(ids[0])/borrow", as: ann).status == 201)

            func rels(_ book: String, as credentials: GatewayClient.Credentials?) async throws -> Set<String> {
                let publication = try await stack.fetchValid("/opds/books/\(book)", kind: "publication", json: true, as: credentials).json
                return Set(links(publication).map(\.rel))
            }
            let mine = try await rels(ids[0], as: ann)
            #expect(mine.contains("http://opds-spec.org/acquisition") && mine.contains("http://librarysimplified.org/terms/rel/revoke"), "\(mine)")
            #expect(!mine.contains("http://opds-spec.org/acquisition/borrow"))
            let anonymous = try await rels(ids[0], as: nil)
            #expect(
                anonymous.contains("http://opds-spec.org/acquisition/borrow") && !anonymous.contains("http://librarysimplified.org/terms/rel/revoke")
            )
            let shelf = try await stack.fetchValid("/opds/shelf", kind: "feed", json: true, as: ann).json
            #expect(publicationIDs(shelf) == [ids[0]])
            try await stack.fetchValid("/opds/shelf", kind: "atom", as: ann)
            #expect(try await api.call(.GET, "/opds/shelf").status == 401)
            // Saved books past the first page follow; a later page is a valid feed that leads back.
            let later = try await stack.fetchValid("/opds/shelf?page=2", kind: "feed", json: true, as: ann).json
            #expect(publicationIDs(later).isEmpty && links(later).contains { $0.rel == "previous" })
            #expect(try await api.call(.GET, "/opds/shelf?page=0", as: ann).status == 400)
            let redirected = try await api.call(.GET, "/me/books", as: ann, headers: [("Accept", "application/atom+xml;profile=opds-catalog")])
            #expect(redirected.status == 200 && redirected.text.contains("<feed"), "an OPDS client asking /me/books lands on the shelf feed")
            let personal = try await api.call(.GET, "/opds/lanes/new", as: ann)
            #expect(personal.headers.first(name: "cache-control")?.hasPrefix("private") == true)

            let ignored = try await api.call(.PUT, "/me/books/\(ids[1])/ignored", as: ann)
            #expect((200..<300).contains(ignored.status), "\(ignored.text)")
            let lane = try await stack.fetchValid("/opds/lanes/new", kind: "feed", json: true, as: ann).json
            #expect(!publicationIDs(lane).contains(ids[1]) && publicationIDs(lane).contains(ids[0]))
            try await stack.fetchValid("/opds/lanes/new", kind: "atom", as: ann)
            #expect(publicationIDs(try await stack.fetchValid("/opds/lanes/new", kind: "feed", json: true).json).contains(ids[1]))
            let title = try #require(
                (try await api.call(.GET, "/opds/books/\(ids[1])", headers: [("Accept", "application/opds+json")]).json["metadata"] as? [String: Any])?[
                    "title"
                ] as? String
            )
            let word = title.split(separator: " ").max { $0.count < $1.count }.map { String($0).lowercased() } ?? title
            let query = "/opds/search?q=" + (word.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? word)
            #expect(publicationIDs(try await stack.fetchValid(query, kind: "feed", json: true).json).contains(ids[1]))
            #expect(!publicationIDs(try await stack.fetchValid(query, kind: "feed", json: true, as: ann).json).contains(ids[1]))
            // Hidden from feeds and search, not from its own page and its related books' (issue 72's only non-2xx answers).
            try await stack.fetchValid("/opds/books/\(ids[1])", kind: "publication", json: true, as: ann)
            try await stack.fetchValid("/opds/books/\(ids[1])", kind: "atom", as: ann)
            #expect(try await api.call(.GET, "/opds/books/\(ids[1])/related", as: ann).status == 200)
            #expect((200..<300).contains(try await api.call(.DELETE, "/me/books/\(ids[1])/ignored", as: ann).status))
            #expect(publicationIDs(try await stack.fetchValid("/opds/lanes/new", kind: "feed", json: true, as: ann).json).contains(ids[1]))
        }
    }
}
