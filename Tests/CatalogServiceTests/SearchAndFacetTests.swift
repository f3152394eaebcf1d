import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

@testable import CatalogService

/// Search relevance, fielded search, pagination and the lane facets on a seeded catalog: generated books (with
/// ISBNs and genres, `Tests/tools/make_epubs.py`) next to real ones from the corpus.
extension CatalogServiceTests {
    /// `count` generated EPUBs in a folder that is removed with the test's blobs.
    func generatedBooks(_ count: Int, seed: Int) async throws -> [URL] {
        let folder = blobs.appendingPathComponent("generated")
        let script = TestTools.directory.appendingPathComponent("make_epubs.py").path
        let made = try await ChildProcess.run(["python3", script, folder.path, "\(count)", "\(seed)"])
        #expect(made.status == 0, "\(String(decoding: made.output, as: UTF8.self))")
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).filter { $0.pathExtension == "epub" }
            .sorted { $0.path < $1.path }
    }

    func opds2(_ client: some TestClientProtocol, _ uri: String) async throws -> [String: Any] {
        let body = try await client.execute(uri: uri, method: .get, headers: [.accept: "application/opds+json"]) { response in
            #expect(response.status == .ok, "\(uri)")
            return Data(buffer: response.body)
        }
        return try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
    }

    func ids(_ document: [String: Any]) -> [String] {
        (document["publications"] as? [[String: Any]] ?? []).compactMap { ($0["metadata"] as? [String: Any])?["identifier"] as? String }
    }

    @Test(.needsCorpus) func anISBNAGenreFilterAndEverySortFindWhatTheyShould() async throws {
        let (app, _) = try await app()
        let files = try await generatedBooks(24, seed: 11)
        try await app.testRouter { client in
            var books: [[String: Any]] = []
            for (index, file) in files.enumerated() {
                let (status, body) = try await ingest(client, file, query: index == 0 ? "?copies=0" : "")
                #expect(status == .created)
                books.append(try #require(body["book"] as? [String: Any]))
            }
            for name in ["otc-moby.epub", "gutenberg-pg11-alice.epub"] {
                _ = try await ingest(client, CorpusBook.all.first { $0.file.lastPathComponent == name }!.file)
            }
            let urn = { (book: [String: Any]) in "urn:uuid:" + (book["id"] as! String) }

            // An ISBN in q, hyphenated or not, and the isbn field find exactly that book.
            let target = books[5]
            let isbn = try #require(target["isbn"] as? String)
            let hyphenated =
                "\(isbn.prefix(3))-\(isbn.dropFirst(3).prefix(1))-\(isbn.dropFirst(4).prefix(4))-\(isbn.dropFirst(8).prefix(4))-\(isbn.suffix(1))"
            for query in ["q=\(isbn)", "q=\(hyphenated)", "isbn=\(isbn)"] {
                let found = try await opds2(client, "/opds/search?\(query)")
                #expect(ids(found) == [urn(target)], "\(query)")
                #expect((found["metadata"] as? [String: Any])?["numberOfItems"] as? Int == 1, "\(query)")
            }

            // A title word with a genre filter: the intended book first, and every result in that genre.
            let genre = try #require((target["genres"] as? [String])?.first)
            let word = try #require((target["title"] as? String)?.split(separator: " ").map(String.init).max { $0.count < $1.count })
            let filtered = try await opds2(client, "/opds/search?q=\(word)&genre=\(genre)")
            #expect(ids(filtered).first == urn(target), "\(word) in \(genre)")
            let inGenre = Set(books.filter { ($0["genres"] as? [String])?.contains(genre) == true }.map(urn))
            #expect(Set(ids(filtered)).isSubset(of: inGenre))

            // Pages of a search partition its results: totalResults of them, none twice.
            let common = try await opds2(client, "/opds/search?q=the&size=100")
            let total = try #require((common["metadata"] as? [String: Any])?["numberOfItems"] as? Int)
            #expect(total == ids(common).count && total > 6)
            var paged: [String] = []
            for page in 1...((total + 4) / 5) { paged += ids(try await opds2(client, "/opds/search?q=the&size=5&page=\(page)")) }
            #expect(paged.count == total && Set(paged) == Set(ids(common)))
            // A page past the last match is empty but still says how many there are.
            for order in ["", "&sort=title"] {
                let beyond = try await opds2(client, "/opds/search?q=the&size=5&page=\(total + 1)\(order)")
                #expect(ids(beyond).isEmpty && (beyond["metadata"] as? [String: Any])?["numberOfItems"] as? Int == total, "\(order)")
            }
            let byTitle = try await opds2(client, "/opds/search?q=the&size=100&sort=title&order=asc")
            let titles = (byTitle["publications"] as? [[String: Any]] ?? []).compactMap { ($0["metadata"] as? [String: Any])?["title"] as? String }
            // Leading articles do not count ("The Drowned Witness" sorts under D), as in any library catalogue.
            let sortTitles = titles.map { $0.lowercased().replacing(#/^(the|a|an) /#, with: "") }
            #expect(sortTitles == sortTitles.sorted(), "\(titles)")

            // Typos: nothing matches "Drowned Mountian" word for word, the look-alike title does. "Drowned Mount" matches
            // one book by prefix, which stays first, and the look-alike titles ("The Drowned Witness") follow it, paged as one list.
            let titled = { (title: String) in books.first { $0["title"] as? String == title }.map(urn) }
            #expect(ids(try await opds2(client, "/opds/search?q=Drowned%20Mountian")).first == titled("The Drowned Mountain"))
            let few = try await opds2(client, "/opds/search?q=Drowned%20Mount&size=100")
            #expect(ids(few).first == titled("The Drowned Mountain"))
            #expect(ids(few).contains(try #require(titled("The Drowned Witness"))))
            #expect(ids(few).count > 1 && (few["metadata"] as? [String: Any])?["numberOfItems"] as? Int == ids(few).count)
            var onePerPage: [String] = []
            for page in 1...ids(few).count { onePerPage += ids(try await opds2(client, "/opds/search?q=Drowned%20Mount&size=1&page=\(page)")) }
            #expect(onePerPage == ids(few))
            // Its next links (by number: the list has no cursor) walk the same list.
            #expect(try await pagedIDs(client, "/opds/search?q=Drowned%20Mount&size=1").flatMap { $0 } == ids(few))

            // Every sort facet of a lane, both ways: descending is exactly ascending reversed (ties broken by id).
            for sort in try #require(Lane.named("new")).sorts {
                let up = ids(try await opds2(client, "/opds/lanes/new?sort=\(sort.rawValue)&order=asc&size=100"))
                let down = ids(try await opds2(client, "/opds/lanes/new?sort=\(sort.rawValue)&order=desc&size=100"))
                #expect(up.count == books.count + 2 && up == down.reversed(), "\(sort)")
            }
            let newest = ids(try await opds2(client, "/opds/lanes/new?sort=added&order=desc&size=3"))
            #expect(
                newest.count == 3 && newest.prefix(2).allSatisfy { !books.map(urn).contains($0) } && newest[2] == urn(books.last!),
                "the corpus books were ingested last"
            )
            // The availability facet: the book with no copies is only in "all".
            let all = ids(try await opds2(client, "/opds/lanes/new?available=all&size=100"))
            let now = ids(try await opds2(client, "/opds/lanes/new?available=now&size=100"))
            #expect(all.contains(urn(books[0])) && !now.contains(urn(books[0])) && now.count == all.count - 1)
        }
    }
}

extension CatalogServiceTests {
    @Test func theRootListsALaneForEveryGenreThatHasBooksAndDropsItWithItsLastBook() async throws {
        let (app, _) = try await app()
        let files = try await generatedBooks(10, seed: 5)
        try await app.testRouter { client in
            var books: [(id: String, genres: [String])] = []
            for file in files {
                let book = try #require(try await ingest(client, file).1["book"] as? [String: Any])
                books.append((try #require(book["id"] as? String), try #require(book["genres"] as? [String])))
            }
            func genreLanes() async throws -> Set<String> {
                let root = try await opds2(client, "/opds")
                return Set(
                    (root["navigation"] as? [[String: Any]] ?? []).compactMap {
                        ($0["href"] as? String)?.components(separatedBy: "/opds/lanes/genre-").dropFirst().first
                    }
                )
            }
            #expect(try await genreLanes() == Set(books.flatMap(\.genres)))

            // Withdraw every book of the rarest genre: its lane goes, the lanes of the others' genres stay.
            let counts = Dictionary(books.flatMap(\.genres).map { ($0, 1) }, uniquingKeysWith: +)
            let rarest = try #require(counts.min { $0.value < $1.value }?.key)
            let withdrawn = books.filter { $0.genres.contains(rarest) }
            for book in withdrawn {
                let status = try await client.execute(uri: "/admin/books/\(book.id)", method: .delete, headers: Self.admin) { $0.status }
                #expect(status.code < 300)
            }
            let remaining = Set(books.filter { !$0.genres.contains(rarest) }.flatMap(\.genres))
            #expect(try await genreLanes() == remaining)
            #expect(!remaining.contains(rarest))
        }
    }
}
