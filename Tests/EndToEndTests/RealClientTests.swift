import Foundation
import TestSupport
import Testing

/// What real library clients do with this server: Palace's OPDS 2.0 importer reads every kind of document it emits,
/// and a client signs in the way the authentication document declares.
@Suite struct RealClientTests {
    static func corpusFile(_ name: String) async throws -> URL {
        try #require(await Stack.corpus.first { $0.lastPathComponent == name }, "\(name) is in ../shared/epubs")
    }

    @Test(.enabled(if: TestTools.corpusIsPresent, Comment(rawValue: TestTools.corpusMissing)))
    func palacesParserReadsEveryOPDS2DocumentWithoutErrors() async throws {
        try await Stack.run { stack in
            let api = stack.gateway
            let coverless = try await stack.ingest(try Self.corpusFile("bmaupin-minimal-v2.epub"))
            let openAccess = try await stack.ingest(try Self.corpusFile("palace-charles-dickens_great-expectations.epub"), openAccess: true)
            let lent = try await stack.ingest(try Self.corpusFile("bmaupin-basic-v3plus2.epub"), copies: 2)
            let (_, token) = try await stack.signUp()
            let ann = GatewayClient.Credentials.bearer(token)
            try await stack.waitForLicence(lent, token: token)
            #expect(try await api.call(.POST, "/me/books/\(lent)/borrow", as: ann).status == 201)

            var documents: [String: [Data]] = [:]
            func fetch(_ path: String, kind: String, as credentials: GatewayClient.Credentials? = nil) async throws -> [String: Any] {
                let reply = try await stack.fetchValid(path, kind: kind, json: true, as: credentials)
                documents[kind, default: []].append(reply.body)
                return reply.json
            }
            for credentials in [nil, ann] {
                _ = try await fetch("/opds", kind: "feed", as: credentials)
                _ = try await fetch("/opds/groups", kind: "feed", as: credentials)
                _ = try await fetch("/opds/lanes/new?size=10", kind: "feed", as: credentials)
                _ = try await fetch("/opds/lanes/new?accessibility=screen-reader", kind: "feed", as: credentials)
                _ = try await fetch("/opds/search?q=expectations", kind: "feed", as: credentials)
                _ = try await fetch("/opds/search?q=nothing-matches-this", kind: "feed", as: credentials)
                for book in [coverless, openAccess, lent] { _ = try await fetch("/opds/books/\(book)", kind: "publication", as: credentials) }
            }
            _ = try await fetch("/opds/shelf", kind: "feed", as: ann)
            for book in [coverless, openAccess, lent] { _ = try await fetch("/books/\(book)/manifest.json", kind: "manifest", as: ann) }

            for (kind, bodies) in documents {
                let problems = try await PalaceParser.problems(in: bodies, kind: kind)
                #expect(problems == nil, "Palace's parser on \(bodies.count) \(kind) documents:\n\(problems ?? "")")
            }

            // A coverless book has its drawn cover; the manifest is linked for those who may read the book.
            let drawn = try await fetch("/opds/books/\(coverless)", kind: "publication")
            #expect((drawn["images"] as? [[String: Any]])?.isEmpty == false)
            func manifestLinks(_ book: String, as credentials: GatewayClient.Credentials?) async throws -> [String] {
                links(try await fetch("/opds/books/\(book)", kind: "publication", as: credentials)).map(\.href).filter {
                    $0.hasSuffix("/manifest.json")
                }
            }
            #expect(try await manifestLinks(openAccess, as: nil).count == 1, "open access: linked for everyone")
            #expect(try await manifestLinks(lent, as: ann).count == 1, "lent: linked for the borrower")
            #expect(try await manifestLinks(lent, as: nil).isEmpty)
            let shelf = try await fetch("/opds/shelf", kind: "feed", as: ann)
            let onShelf = (shelf["publications"] as? [[String: Any]] ?? []).flatMap { links($0).map(\.href) }
            #expect(onShelf.contains { $0.hasSuffix("/books/\(lent)/manifest.json") }, "the loan entry carries the manifest link")
        }
    }

    /// `http://opds-spec.org/auth/oauth/password` tells a client to use RFC 6749's password and refresh_token grants,
    /// form-encoded, at the flow's `authenticate` and `refresh` links.
    @Test func aClientSignsInAndRefreshesAsTheAuthenticationDocumentSays() async throws {
        try await Stack.run { stack in
            let api = stack.gateway
            let (barcode, _) = try await stack.signUp(pin: "2468")
            let document = try await api.call(.GET, "/auth/document")
            let flows = document.json["authentication"] as? [[String: Any]] ?? []
            let oauth = try #require(flows.first { $0["type"] as? String == "http://opds-spec.org/auth/oauth/password" })
            let flowLinks = links(oauth)
            let authenticate = try #require(flowLinks.first { $0.rel == "authenticate" }?.href)
            let refresh = try #require(flowLinks.first { $0.rel == "refresh" }?.href)
            let form = [("Content-Type", "application/x-www-form-urlencoded")]

            let signedIn = try await api.call(
                .POST,
                authenticate,
                body: Data("grant_type=password&username=\(barcode)&password=2468".utf8),
                headers: form
            )
            #expect(signedIn.status == 200 && signedIn.headers.first(name: "cache-control") == "no-store", "\(signedIn.text)")
            let access = try #require(signedIn.json["access_token"] as? String)
            let refreshToken = try #require(signedIn.json["refresh_token"] as? String)
            #expect(try await api.call(.GET, "/me", as: .bearer(access)).status == 200)

            let refreshed = try await api.call(
                .POST,
                refresh,
                body: Data("grant_type=refresh_token&refresh_token=\(refreshToken)".utf8),
                headers: form
            )
            #expect(refreshed.status == 200, "\(refreshed.text)")
            let next = try #require(refreshed.json["access_token"] as? String)
            #expect(try await api.call(.GET, "/me", as: .bearer(next)).status == 200)

            let wrong = try await api.call(
                .POST,
                authenticate,
                body: Data("grant_type=password&username=\(barcode)&password=0000".utf8),
                headers: form
            )
            #expect(wrong.status == 400 && wrong.json["error"] as? String == "invalid_grant")
        }
    }
}
