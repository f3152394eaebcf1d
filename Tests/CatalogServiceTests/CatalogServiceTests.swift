import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceSupport
import Shared
import TestSupport
import Testing
import ZIPFoundation

@testable import CatalogService

/// The catalog through its router against a real database: the whole corpus ingested, then every kind of feed.
/// A class so that each test's blob folder is removed when the test ends (`deinit`).
@Suite final class CatalogServiceTests: Sendable {
    static let admin: HTTPFields = [.authorization: "Bearer \(TestConfig.adminToken)", .contentType: "application/epub+zip"]
    let blobs = FileManager.default.temporaryDirectory.appendingPathComponent("blobs-\(UUID().uuidString)")

    deinit { try? FileManager.default.removeItem(at: blobs) }

    func app() async throws -> (some ApplicationProtocol, URL) {
        let app = try await buildCatalogApplication(
            config: TestConfig.base(["CATALOG_DATABASE_URL": try await TestDatabase.create(prefix: "catalog"), "BLOB_DIR": blobs.path])
        )
        return (app, blobs)
    }

    func ingest(_ client: some TestClientProtocol, _ file: URL, query: String = "") async throws -> (HTTPResponse.Status, [String: Any]) {
        let data = try Data(contentsOf: file)
        return try await client.execute(uri: "/admin/books" + query, method: .post, headers: Self.admin, body: ByteBuffer(bytes: data)) { response in
            (response.status, (try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]) ?? [:])
        }
    }

    @Test func theWholeCorpusIngestsOrIsRefusedAndFeedsValidate() async throws {
        let (app, blobs) = try await app()
        try await app.test(.router) { client in
            var ids: [String] = []
            for book in CorpusBook.all {
                let (status, body) = try await ingest(client, book.file, query: "?copies=2")
                if book.shouldIngest.hasPrefix("yes") {
                    #expect(status == .created || status == .ok, "\(book): \(status) \(body["detail"] ?? "")")
                    if status == .created { #expect(body["title"] as? String == book.title.collapsingWhitespace, "\(book)") }
                    if let id = body["id"] as? String { ids.append(id) }
                } else if book.shouldIngest == "no" {
                    #expect(status == .unprocessableContent, "\(book): \(status)")
                    #expect((body["type"] as? String)?.hasPrefix(Problem.typeBase) == true)
                } else {
                    #expect(status.code < 500, "\(book): \(status)")
                }
            }
            // The same file again is 200 with the same book.
            let again = try await ingest(client, CorpusBook.all.first { $0.shouldIngest == "yes" }!.file)
            #expect(again.0 == .ok)
            #expect(again.1["outcome"] as? String == "unchanged")
            // Refused files left no blob behind: one EPUB blob per book plus covers.
            let stored =
                FileManager.default.enumerator(at: blobs, includingPropertiesForKeys: nil)?.allObjects.compactMap { $0 as? URL }
                .filter { !$0.hasDirectoryPath && !$0.lastPathComponent.hasPrefix(".") } ?? []
            #expect(stored.count >= Set(ids).count)

            let id = try #require(ids.first)
            try await validate(client, "/opds", kind: "atom")
            try await validate(client, "/opds", kind: "feed", json: true)
            try await validate(client, "/opds/groups", kind: "atom")
            try await validate(client, "/opds/groups", kind: "feed", json: true)
            try await validate(client, "/opds/lanes/new?size=5", kind: "atom")
            try await validate(client, "/opds/lanes/new?size=5", kind: "feed", json: true)
            try await validate(client, "/opds/search?q=waste", kind: "atom")
            try await validate(client, "/opds/search?q=waste", kind: "feed", json: true)
            // Empty listings are valid too (OPDS 2.0 wants one non-empty collection: they offer the way back).
            try await validate(client, "/opds/search?q=zzqxjvw", kind: "atom")
            try await validate(client, "/opds/search?q=zzqxjvw", kind: "feed", json: true)
            try await validate(client, "/opds/lanes/staff-picks", kind: "feed", json: true)
            try await validate(client, "/opds/books/\(id)", kind: "atom")
            try await validate(client, "/opds/books/\(id)", kind: "publication", json: true)
            var manifests: [Data] = []
            for id in Set(ids) {
                manifests.append(try await client.execute(uri: "/books/\(id)/manifest.json", method: .get) { Data(buffer: $0.body) })
            }
            let problems = try OPDSValidator.problems(in: manifests, kind: "manifest")
            #expect(problems == nil, "every book's manifest is valid: \(problems ?? "")")
        }
    }

    /// Runs ../shared/tools/validate_opds.py on the document at `uri`.
    func validate(_ client: some TestClientProtocol, _ uri: String, kind: String, json: Bool = false) async throws {
        let headers: HTTPFields = json ? [.accept: "application/opds+json"] : [:]
        let body = try await client.execute(uri: uri, method: .get, headers: headers) { response in
            #expect(response.status == .ok, "\(uri)")
            return Data(buffer: response.body)
        }
        let problems = try OPDSValidator.problems(in: body, kind: kind)
        #expect(problems == nil, "\(uri) as \(kind): \(problems ?? "")")
    }

    @Test func lanePagesAreStableUnderConcurrentInsertsAndFacetsValidate() async throws {
        let (app, _) = try await app()
        try await app.test(.router) { client in
            let small = CorpusBook.all.filter { $0.shouldIngest == "yes" }.prefix(12)
            for book in small.prefix(8) { _ = try await ingest(client, book.file) }
            var seen: [String] = []
            var uri = "/opds/lanes/new?sort=title&order=asc&size=3"
            var inserted = false
            while true {
                let body = try await client.execute(uri: uri, method: .get, headers: [.accept: "application/opds+json"]) { Data(buffer: $0.body) }
                let document = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
                let publications = document["publications"] as? [[String: Any]] ?? []
                seen += publications.compactMap { ($0["metadata"] as? [String: Any])?["identifier"] as? String }
                if !inserted {
                    for book in small.dropFirst(8) { _ = try await ingest(client, book.file) }
                    inserted = true
                }
                guard let next = (document["links"] as? [[String: Any]])?.first(where: { $0["rel"] as? String == "next" })?["href"] as? String else {
                    break
                }
                uri = String(next.dropFirst("http://127.0.0.1:8080".count))
            }
            #expect(Set(seen).count == seen.count, "no duplicates across pages")
            #expect(seen.count >= 8)
            let bad = try await client.execute(uri: "/opds/lanes/new?after=garbage", method: .get) { $0.status }
            #expect(bad == .badRequest)
            #expect(try await client.execute(uri: "/opds/lanes/nope", method: .get) { $0.status } == .notFound)
        }
    }

    @Test func feedsCarryAStrongETagAnswer304AndGzipWhenAsked() async throws {
        let (app, _) = try await app()
        try await app.test(.router) { client in
            for book in CorpusBook.all.filter({ $0.shouldIngest == "yes" }).prefix(4) { _ = try await ingest(client, book.file) }
            let (plain, etag, control) = try await client.execute(uri: "/opds/lanes/new", method: .get) {
                (Data(buffer: $0.body), $0.headers[.eTag], $0.headers[.cacheControl])
            }
            let tag = try #require(etag)
            #expect(tag.hasPrefix("\"") && !tag.hasPrefix("W/"), "a strong ETag")
            #expect(control?.hasPrefix("public") == true, "anonymous feeds are shared-cacheable")
            #expect(try await client.execute(uri: "/opds/lanes/new", method: .get, headers: [.ifNoneMatch: tag]) { $0.status } == .notModified)
            let (zipped, encoding, zippedTag) = try await client.execute(
                uri: "/opds/lanes/new",
                method: .get,
                headers: [.acceptEncoding: "br, gzip;q=0.8"]
            ) {
                (Data(buffer: $0.body), $0.headers[.contentEncoding], $0.headers[.eTag])
            }
            #expect(encoding == "gzip" && zippedTag != tag && zipped.count < plain.count)
            #expect(zipped.prefix(2) == Data([0x1f, 0x8b]), "a gzip member")
            let refused = try await client.execute(uri: "/opds/lanes/new", method: .get, headers: [.acceptEncoding: "gzip;q=0"]) {
                $0.headers[.contentEncoding]
            }
            #expect(refused == nil)
            let unzipped = try gunzip(zipped)
            #expect(unzipped == plain)
        }
    }

    /// Inflates with the system's gzip, so the check does not trust the code under test.
    func gunzip(_ data: Data) throws -> Data {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gz-\(UUID().uuidString).gz")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-dc", file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return output
    }

    @Test func searchFindsByMisspelledTitleSurnameAndISBNAndSurvivesHostileQueries() async throws {
        let (app, _) = try await app()
        try await app.test(.router) { client in
            for name in [
                "otc-moby.epub", "otc-swann.epub", "idpf-wasteland.epub", "palace-charles-dickens_great-expectations.epub",
                "gutenberg-pg11-alice.epub",
            ] {
                _ = try await ingest(client, CorpusBook.all.first { $0.file.lastPathComponent == name }!.file)
            }
            func first(_ query: String) async throws -> String? {
                let body = try await client.execute(uri: "/opds/search?\(query)", method: .get, headers: [.accept: "application/opds+json"]) {
                    Data(buffer: $0.body)
                }
                let document = try JSONSerialization.jsonObject(with: body) as? [String: Any]
                return ((document?["publications"] as? [[String: Any]])?.first?["metadata"] as? [String: Any])?["title"] as? String
            }
            #expect(try await first("q=Moby") == "Moby-Dick")
            #expect(try await first("q=expectatons") == "Great Expectations")
            #expect(try await first("q=cote%20swann") == "Du côté de chez Swann")
            #expect(try await first("q=Dickens") == "Great Expectations")
            // OPDS 2.0 apps expand the feeds' templated search link, `/opds/search{?query}`.
            let root = try await client.execute(uri: "/opds", method: .get, headers: [.accept: "application/opds+json"]) { Data(buffer: $0.body) }
            let links = try #require((try JSONSerialization.jsonObject(with: root) as? [String: Any])?["links"] as? [[String: Any]])
            let search = try #require(links.first { $0["rel"] as? String == "search" })
            #expect(search["templated"] as? Bool == true)
            #expect((search["href"] as? String)?.hasSuffix("/opds/search{?query}") == true)
            #expect(try await first("query=Moby") == "Moby-Dick")
            // The next page repeats the query as it was sent, still percent-encoded ("&" and spaces included).
            let atom = try await client.execute(uri: "/opds/search?q=the%20%26&size=1", method: .get) { String(buffer: $0.body) }
            #expect(atom.contains("/opds/search?q=the%20%26&amp;size=1&amp;page=2\""))
            for hostile in [
                "q=%27%3B%20DROP%20TABLE%20books%3B--", "q=%28%28%28%21%21", "q=a%3A*%20%26%20%7C", "q=%00",
                "q=" + String(repeating: "x", count: 900), "q=%F0%9F%93%9A",
            ] {
                let status = try await client.execute(uri: "/opds/search?\(hostile)", method: .get) { $0.status }
                #expect(status == .ok || status == .badRequest, "\(hostile)")
            }
        }
    }

    @Test func adminRoutesNeedTheAdminToken() async throws {
        let (app, _) = try await app()
        try await app.test(.router) { client in
            let status = try await client.execute(uri: "/admin/books", method: .post, body: ByteBuffer(string: "x")) { $0.status }
            #expect(status == .unauthorized)
        }
    }

    @Test func downloadsNeedALoanUnlessOpenAccessAndHonourRanges() async throws {
        let (app, _) = try await app()
        try await app.test(.router) { client in
            let file = CorpusBook.all.first { $0.file.lastPathComponent == "idpf-trees.epub" }!.file
            let (_, lent) = try await ingest(client, file)
            let lentID = try #require(lent["id"] as? String)
            let anonymous = try await client.execute(uri: "/books/\(lentID)/fulfill", method: .get) { $0.status }
            #expect(anonymous == .unauthorized)
            let open = CorpusBook.all.first { $0.file.lastPathComponent == "palace-nestedtoc.epub" }!.file
            let (_, openBook) = try await ingest(client, open, query: "?open_access=true")
            let openID = try #require(openBook["id"] as? String)
            let bytes = try Data(contentsOf: open)
            try await client.execute(uri: "/books/\(openID)/fulfill", method: .get) { response in
                #expect(response.status == .ok)
                #expect(Data(buffer: response.body) == bytes)
            }
            try await client.execute(uri: "/books/\(openID)/fulfill", method: .get, headers: [.range: "bytes=10-19"]) { response in
                #expect(response.status == .partialContent)
                #expect(Data(buffer: response.body) == bytes.subdata(in: 10..<20))
                #expect(response.headers[.contentRange] == "bytes 10-19/\(bytes.count)")
            }
            try await client.execute(uri: "/books/\(openID)/fulfill", method: .get, headers: [.range: "bytes=999999999-"]) {
                #expect($0.status.code == 416)
            }
        }
    }
}

extension CatalogServiceTests {
    @Test func coversHaveAThumbnailAtMost200PixelsHighAndFeedsSayItsType() async throws {
        let (app, _) = try await app()
        try await app.test(.router) { client in
            let book = try #require(CorpusBook.all.first { $0.file.lastPathComponent == "bmaupin-basic-v3plus2.epub" })
            let (status, body) = try await ingest(client, book.file)
            #expect(status == .created)
            let id = try #require(body["id"] as? String)
            let (cover, coverType) = try await client.execute(uri: "/books/\(id)/cover", method: .get) {
                (Data(buffer: $0.body), $0.headers[.contentType])
            }
            let (thumbnail, thumbnailType, etag) = try await client.execute(uri: "/books/\(id)/cover?size=thumbnail", method: .get) {
                (Data(buffer: $0.body), $0.headers[.contentType], $0.headers[.eTag])
            }
            #expect(coverType == "image/jpeg" && thumbnailType == "image/jpeg")
            #expect(try #require(ImageSize.of(cover)).height > 200)
            #expect(try #require(ImageSize.of(thumbnail)).height == 200)
            let tag = try #require(etag)
            #expect(
                try await client.execute(uri: "/books/\(id)/cover?size=thumbnail", method: .get, headers: [.ifNoneMatch: tag]) { $0.status }
                    == .notModified
            )
            let entry = try await client.execute(uri: "/opds/books/\(id)", method: .get) { String(buffer: $0.body) }
            #expect(
                entry.contains(
                    #"rel="http://opds-spec.org/image/thumbnail" href="http://127.0.0.1:8080/books/\#(id)/cover?size=thumbnail" type="image/jpeg""#
                )
            )
            let missing = try await client.execute(uri: "/books/\(UUID())/cover?size=thumbnail", method: .get) { $0.status }
            #expect(missing == .notFound)
        }
    }
}

extension CatalogServiceTests {
    /// Every resource a manifest lists, fetched at its href, is the archive's entry byte for byte with the manifest's type
    /// (an obfuscated font as the font itself).
    @Test(arguments: ["idpf-wasteland.epub", "epubcheck-ocf-filepath-utf8-valid.epub", "palace-nestedtoc.epub", "idpf-wasteland-woff-obf.epub"])
    func theManifestsResourcesAreServedFromInsideTheArchive(fileName: String) async throws {
        let (app, _) = try await app()
        try await app.test(.router) { client in
            let file = try #require(CorpusBook.all.first { $0.file.lastPathComponent == fileName }).file
            let (_, book) = try await ingest(client, file, query: "?open_access=true")
            let id = try #require(book["id"] as? String)
            try await validate(client, "/books/\(id)/manifest.json", kind: "manifest", json: true)
            let manifest = try await client.execute(uri: "/books/\(id)/manifest.json", method: .get) {
                try #require(try JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any])
            }
            let links = (manifest["readingOrder"] as? [[String: Any]] ?? []) + (manifest["resources"] as? [[String: Any]] ?? [])
            #expect(!links.isEmpty)
            let archive = try Archive(url: file, accessMode: .read)
            let prefix = "http://127.0.0.1:8080/books/\(id)/publication/"
            var served = 0
            for link in links {
                let href = try #require(link["href"] as? String)
                #expect(href.hasPrefix(prefix), "\(href)")
                let path = try #require(String(href.dropFirst(prefix.count)).removingPercentEncoding)
                guard let entry = archive[path] else { continue }  // a dangling manifest item: listed, not in the file
                var expected = Data()
                _ = try archive.extract(entry) { expected.append($0) }
                if path.hasSuffix(".obf.woff") {
                    #expect(expected.prefix(4) != Data("wOFF".utf8))
                    expected = try #require(
                        FontObfuscation(
                            algorithm: FontObfuscation.idpfAlgorithm,
                            uniqueIdentifier: "code.google.com.epub-samples.wasteland-woff-obfuscated"
                        )
                    ).apply(to: expected)
                    #expect(expected.prefix(4) == Data("wOFF".utf8))
                }
                try await client.execute(uri: String(href.dropFirst("http://127.0.0.1:8080".count)), method: .get) { response in
                    #expect(response.status == .ok, "\(href)")
                    #expect(response.headers[.contentType] == link["type"] as? String, "\(href)")
                    #expect(Data(buffer: response.body) == expected, "\(href)")
                }
                served += 1
            }
            #expect(served > links.count / 2)
            // A part of a resource, as a media player seeking would ask for it.
            let first = try #require(links.first?["href"] as? String).dropFirst("http://127.0.0.1:8080".count)
            let whole = try await client.execute(uri: String(first), method: .get) { Data(buffer: $0.body) }
            try await client.execute(uri: String(first), method: .get, headers: [.range: "bytes=10-19"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "bytes 10-19/\(whole.count)")
                #expect(Data(buffer: response.body) == whole[10..<20])
            }
            try await client.execute(uri: String(first), method: .get, headers: [.range: "bytes=\(whole.count)-"]) { #expect($0.status.code == 416) }
            // Table-of-contents links land on served resources.
            for entry in manifest["toc"] as? [[String: Any]] ?? [] {
                let href = try #require(entry["href"] as? String).split(separator: "#").first.map(String.init) ?? ""
                #expect(
                    try await client.execute(uri: String(href.dropFirst("http://127.0.0.1:8080".count)), method: .get) { $0.status } == .ok,
                    "\(href)"
                )
            }
            // Only what the package lists: not the container, nothing outside the archive.
            for path in ["META-INF/container.xml", "..%2F..%2Fetc%2Fpasswd", "../../../etc/passwd", "nope.xhtml"] {
                let status = try await client.execute(uri: "/books/\(id)/publication/\(path)", method: .get) { $0.status }
                #expect(status == .notFound || status == .badRequest, "\(path): \(status)")
            }
        }
    }

    @Test func aLentBooksResourcesNeedAnActiveLoan() async throws {
        let (app, _) = try await app()
        try await app.test(.router) { client in
            let file = try #require(CorpusBook.all.first { $0.file.lastPathComponent == "idpf-trees.epub" }).file
            let (_, book) = try await ingest(client, file)
            let id = try #require(book["id"] as? String)
            let manifest = try await client.execute(uri: "/books/\(id)/manifest.json", method: .get) {
                try #require(try JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any])
            }
            let first = try #require((manifest["readingOrder"] as? [[String: Any]])?.first?["href"] as? String)
            let status = try await client.execute(uri: String(first.dropFirst("http://127.0.0.1:8080".count)), method: .get) { $0.status }
            #expect(status == .unauthorized)
        }
    }
}

extension CatalogServiceTests {
    /// A cover no higher than 200 px has no thumbnail of its own: the thumbnail URL serves the cover, with its type.
    @Test func aSmallCoverIsServedAsItsOwnThumbnail() async throws {
        let file = try MinimalEPUB.write(
            title: "A Small Cover",
            cover: .init(name: "cover.png", type: "image/png", data: CoverThumbnailTests.onePixelPNG)
        )
        let (app, _) = try await app()
        try await app.test(.router) { client in
            let (status, body) = try await ingest(client, file)
            #expect(status == .created)
            let id = try #require(body["id"] as? String)
            let cover = try await client.execute(uri: "/books/\(id)/cover", method: .get) { Data(buffer: $0.body) }
            let (thumbnail, type) = try await client.execute(uri: "/books/\(id)/cover?size=thumbnail", method: .get) {
                (Data(buffer: $0.body), $0.headers[.contentType])
            }
            #expect(thumbnail == CoverThumbnailTests.onePixelPNG && cover == thumbnail && type == "image/png")
            let entry = try await client.execute(uri: "/opds/books/\(id)", method: .get) { String(buffer: $0.body) }
            #expect(entry.contains(#"href="http://127.0.0.1:8080/books/\#(id)/cover?size=thumbnail" type="image/png""#))
        }
    }
}
