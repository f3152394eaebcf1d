import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceSupport
import Shared
import TestSupport
import Testing

@testable import CatalogService

/// OPDS import (`/admin/collections`) of a static feed served on loopback (`Tests/tools/static_server.py`): three OPDS
/// 2.0 pages linked by `next`, an OPDS 1.2 page behind Basic credentials reached through navigation, a page that fails
/// and a broken EPUB. Every book is ingested once; a second run changes nothing; a book gone from the feed is withdrawn;
/// a run with a page that failed withdraws nothing.
extension CatalogServiceTests {
    /// The feed's folder and server.
    final class StaticFeed: @unchecked Sendable {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opds-feed-\(UUID().uuidString.prefix(8))")
        var process: ChildProcess?
        var port = 0
        var base: String { "http://127.0.0.1:\(port)" }

        func start() async throws {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("private"), withIntermediateDirectories: true)
            let output = folder.appendingPathExtension("log")
            process = try ChildProcess(
                TestTools.python,
                [TestTools.directory.appendingPathComponent("static_server.py").path, folder.path],
                environment: ProcessInfo.processInfo.environment,
                output: output
            )
            try await eventually("the feed's server did not start") {
                guard let first = ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n").first, let number = Int(first)
                else {
                    return false
                }
                port = number
                return true
            }
        }

        func write(_ name: String, _ text: String) throws {
            try Data(text.utf8).write(to: folder.appendingPathComponent(name))
        }

        func stop() async {
            // SIGKILL: the test runner's blocked signals are the child's too, and a SIGTERM then waits forever.
            process?.signal(SIGKILL)
            _ = await process?.wait()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    static func opds2Page(_ books: [(id: String, file: String)], next: String?, navigation: [String] = []) -> String {
        let publications = books.map { book in
            #"{"metadata": {"identifier": "\#(book.id)", "title": "\#(book.id)"}, "links": [{"rel": "http://opds-spec.org/acquisition/open-access", "href": "\#(book.file)", "type": "application/epub+zip"}]}"#
        }
        let links =
            [#"{"rel": "self", "href": "page.json", "type": "application/opds+json"}"#]
            + (next.map { [#"{"rel": "next", "href": "\#($0)", "type": "application/opds+json"}"#] } ?? [])
        let nav = navigation.map { #"{"href": "\#($0)", "title": "More", "type": "application/atom+xml;profile=opds-catalog;kind=acquisition"}"# }
        return
            #"{"metadata": {"title": "Feed"}, "links": [\#(links.joined(separator: ","))], "navigation": [\#(nav.joined(separator: ","))], "publications": [\#(publications.joined(separator: ","))]}"#
    }

    /// `body` with a feed served, stopped before the test ends: a `defer`'s task may never run, and the server would
    /// outlive the test run.
    func withFeed(_ body: (StaticFeed) async throws -> Void) async throws {
        let feed = StaticFeed()
        try await feed.start()
        do {
            try await body(feed)
        } catch {
            await feed.stop()
            throw error
        }
        await feed.stop()
    }

    @Test func anOPDSImportWalksEveryPageIngestsEachBookOnceAndWithdrawsTheOnesGone() async throws {
        try await withFeed(importsFrom)
    }

    func importsFrom(_ feed: StaticFeed) async throws {
        let books = await TestTools.generatedBooks(count: 6, seed: 5200)
        for (index, book) in books.enumerated() {
            try FileManager.default.copyItem(at: book, to: feed.folder.appendingPathComponent(index == 5 ? "private/b5.epub" : "b\(index).epub"))
        }
        try feed.write("broken.epub", "this is not a zip")
        try feed.write(
            "page1.json",
            Self.opds2Page([("urn:b0", "b0.epub"), ("urn:b1", "b1.epub")], next: "page2.json", navigation: ["private/more.xml"])
        )
        try feed.write("page2.json", Self.opds2Page([("urn:b2", "b2.epub"), ("urn:broken", "broken.epub")], next: "page3.json"))
        try feed.write("page3.json", Self.opds2Page([("urn:b3", "b3.epub"), ("urn:b4", "b4.epub"), ("urn:b0", "b0.epub")], next: nil))
        try feed.write(
            "private/more.xml",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom"><id>more</id><title>More</title><updated>2026-11-28T00:00:00Z</updated>
            <entry><id>urn:b5</id><title>B5</title><updated>2026-11-28T00:00:00Z</updated>
            <link rel="http://opds-spec.org/acquisition/open-access" href="b5.epub" type="application/epub+zip"/></entry></feed>
            """
        )
        let app = try await buildCatalogApplication(
            config: TestConfig.base([
                "CATALOG_DATABASE_URL": try await TestDatabase.create(prefix: "import"), "BLOB_DIR": blobs.path, "STAFF_JOB_INTERVAL": "0.2",
                // The feed is on loopback, which only an operator's allow-list opens.
                "OPDS_IMPORT_ALLOW": "127.0.0.1/32",
            ])
        )
        try await app.testRouter { client in
            let staff: HTTPFields = [.authorization: "Bearer \(TestConfig.adminToken)", .contentType: "application/json"]
            func call(_ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil) async throws -> (HTTPResponse.Status, [String: Any]) {
                try await client.execute(uri: uri, method: method, headers: staff, body: body.map { ByteBuffer(string: $0) }) {
                    ($0.status, (try? JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any]) ?? [:])
                }
            }
            #expect(try await call(.post, "/admin/collections", #"{"name": "x", "url": "file:///etc/passwd"}"#).0 == .badRequest)
            let (created, collection) = try await call(
                .post,
                "/admin/collections",
                #"{"name": "Loopback feed", "url": "\#(feed.base)/page1.json", "username": "user", "password": "secret"}"#
            )
            #expect(created == .created && collection["password"] == nil && collection["hasPassword"] as? Bool == true)
            let id = try #require(collection["id"] as? String)
            func runToTheEnd() async throws -> [String: Any] {
                #expect(try await call(.post, "/admin/collections/\(id)/run").0 == .accepted)
                var last: [String: Any] = [:]
                // A loaded machine's full run took over 40 s for an import of five books (alone: 2 s).
                try await eventually(timeout: .seconds(120), "the import never finished") {
                    last = try await call(.get, "/admin/collections/\(id)").1
                    return ["done", "failed"].contains(last["status"] as? String ?? "")
                }
                return last
            }
            func catalogTitles() async throws -> [String] {
                let (_, page) = try await call(.get, "/admin/books?size=100")
                return (page["books"] as? [[String: Any]] ?? []).filter { $0["withdrawn"] as? Bool != true }.compactMap { $0["id"] as? String }
            }

            let first = try await runToTheEnd()
            #expect(first["status"] as? String == "done", "\(first)")
            #expect(first["pagesRead"] as? Int == 4 && first["entriesSeen"] as? Int == 7, "\(first)")
            #expect(first["booksAdded"] as? Int == 6, "every book once, the broken one refused: \(first)")
            let errors = first["errors"] as? [String] ?? []
            #expect(errors.count == 1 && errors.first?.contains("broken.epub") == true, "\(errors)")
            let afterFirst = try await catalogTitles()
            #expect(afterFirst.count == 6)

            // Again: nothing new, nothing withdrawn.
            let second = try await runToTheEnd()
            #expect(second["booksAdded"] as? Int == 0 && second["booksWithdrawn"] as? Int == 0, "\(second)")
            #expect(try await catalogTitles().count == 6)

            // A page that fails: no book is withdrawn, though one is no longer listed.
            try feed.write("page3.json", Self.opds2Page([("urn:b3", "b3.epub")], next: "missing.json"))
            let failing = try await runToTheEnd()
            #expect(failing["booksWithdrawn"] as? Int == 0 && (failing["errors"] as? [String] ?? []).contains { $0.contains("missing.json") })
            #expect(try await catalogTitles().count == 6)

            // Every page read, b4 gone from the feed: b4 is withdrawn.
            try feed.write("page3.json", Self.opds2Page([("urn:b3", "b3.epub")], next: nil))
            let third = try await runToTheEnd()
            #expect(third["booksWithdrawn"] as? Int == 1 && third["booksAdded"] as? Int == 0, "\(third)")
            #expect(try await catalogTitles().count == 5)
        }
    }

    /// A feed, a redirect or an entry's file on an address that is not public (loopback, the cloud's metadata
    /// address, a private network) is not fetched: a run's errors say so, naming no port's state.
    @Test func anImportFetchesOnlyFromPublicOrAllowedAddresses() async throws {
        try await withFeed(importsOnlyFromPermittedAddresses)
    }

    func importsOnlyFromPermittedAddresses(_ feed: StaticFeed) async throws {
        try FileManager.default.copyItem(
            at: await TestTools.generatedBooks(count: 1, seed: 5300)[0],
            to: feed.folder.appendingPathComponent("b0.epub")
        )
        let port = feed.port
        try feed.write(
            "page1.json",
            Self.opds2Page(
                [
                    ("urn:b0", "b0.epub"), ("urn:metadata", "http://169.254.169.254/latest/meta-data/x.epub"),
                    ("urn:private", "http://10.1.2.3:5432/x.epub"), ("urn:redirected", "/redirect?to=http%3A%2F%2F127.0.0.2%3A\(port)%2Fb0.epub"),
                ],
                next: nil
            )
        )
        let app = try await buildCatalogApplication(
            config: TestConfig.base([
                "CATALOG_DATABASE_URL": try await TestDatabase.create(prefix: "import"), "BLOB_DIR": blobs.path, "STAFF_JOB_INTERVAL": "0.2",
                "OPDS_IMPORT_ALLOW": "127.0.0.1/32",
            ])
        )
        try await app.testRouter { client in
            let staff: HTTPFields = [.authorization: "Bearer \(TestConfig.adminToken)", .contentType: "application/json"]
            func call(_ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil) async throws -> (HTTPResponse.Status, [String: Any]) {
                try await client.execute(uri: uri, method: method, headers: staff, body: body.map { ByteBuffer(string: $0) }) {
                    ($0.status, (try? JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any]) ?? [:])
                }
            }
            func run(_ url: String) async throws -> [String: Any] {
                let (created, collection) = try await call(.post, "/admin/collections", #"{"name": "feed", "url": "\#(url)"}"#)
                #expect(created == .created)
                let id = try #require(collection["id"] as? String)
                #expect(try await call(.post, "/admin/collections/\(id)/run").0 == .accepted)
                var last: [String: Any] = [:]
                try await eventually(timeout: .seconds(120), "the import never finished") {
                    last = try await call(.get, "/admin/collections/\(id)").1
                    return ["done", "failed"].contains(last["status"] as? String ?? "")
                }
                return last
            }
            // The allowed feed: its own book comes in; the entries on other addresses are refused before any connection.
            let allowed = try await run("\(feed.base)/page1.json")
            #expect(allowed["booksAdded"] as? Int == 1, "\(allowed)")
            let errors = allowed["errors"] as? [String] ?? []
            #expect(errors.count == 3 && errors.allSatisfy { $0.contains("is not a public address") }, "\(errors)")
            #expect(!errors.contains { $0.contains("refused") || $0.contains("timed out") || $0.contains("Timeout") }, "\(errors)")

            // A feed on loopback that the list does not name, and a redirect to one.
            for url in [
                "http://127.0.0.2:\(port)/page1.json", "http://[::1]:\(port)/page1.json",
                "\(feed.base)/redirect?to=http%3A%2F%2F127.0.0.2%3A\(port)%2Fpage1.json",
            ] {
                let refused = try await run(url)
                #expect(refused["status"] as? String == "failed", "\(url): \(refused)")
                #expect((refused["errors"] as? [String] ?? []).first?.contains("is not a public address") == true, "\(url): \(refused)")
            }
        }
    }

    @Test func opdsPagesOfBothVersionsGiveTheirEPUBAcquisitionsAndThePagesToReadNext() throws {
        let base = try #require(URL(string: "https://example.org/feeds/root.json"))
        let json = Self.opds2Page([("urn:a", "../books/a.epub")], next: "page2.json", navigation: ["sub.xml"])
        let page = try OPDSFeedPage.parse(Data(json.utf8), url: base)
        #expect(page.entries == [OPDSFeedPage.Entry(id: "urn:a", title: "urn:a", acquisition: URL(string: "https://example.org/books/a.epub")!)])
        #expect(page.follow.map(\.absoluteString) == ["https://example.org/feeds/sub.xml", "https://example.org/feeds/page2.json"])
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom"><link rel="next" href="p2.xml" type="application/atom+xml;profile=opds-catalog"/>
            <entry><id>urn:x</id><title>X</title><link rel="http://opds-spec.org/acquisition" href="/x.epub" type="application/epub+zip"/>
            <link rel="http://opds-spec.org/acquisition" href="/x.pdf" type="application/pdf"/></entry>
            <entry><id>nav</id><title>Fiction</title><link rel="subsection" href="fiction.xml" type="application/atom+xml;profile=opds-catalog;kind=acquisition"/></entry>
            <entry><id>urn:pdf</id><title>Only PDF</title><link rel="http://opds-spec.org/acquisition" href="/y.pdf" type="application/pdf"/></entry>
            </feed>
            """
        let atomPage = try OPDSFeedPage.parse(Data(atom.utf8), url: URL(string: "http://h/feeds/root.xml")!)
        #expect(atomPage.entries.map(\.id) == ["urn:x"] && atomPage.entries.first?.acquisition.absoluteString == "http://h/x.epub")
        #expect(atomPage.follow.map(\.absoluteString) == ["http://h/feeds/p2.xml", "http://h/feeds/fiction.xml"])
        #expect(throws: OPDSFeedPage.Unreadable.self) { try OPDSFeedPage.parse(Data("<html></html>".utf8), url: base) }
        #expect(throws: OPDSFeedPage.Unreadable.self) { try OPDSFeedPage.parse(Data(), url: base) }
    }
}
