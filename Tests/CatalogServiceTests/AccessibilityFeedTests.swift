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

/// Accessibility metadata in OPDS 2.0 publications, manifests and OPDS 1.2 entries, and the accessibility facet.
extension CatalogServiceTests {
    /// The corpus books whose package documents declare accessibility metadata, with what they declare.
    @Test(.needsCorpus) func corpusBooksShowTheAccessibilityTheirPackageDocumentsDeclare() async throws {
        let expected: [String: String] = [
            // <meta property="dcterms:conformsTo">EPUB Accessibility 1.1 - WCAG 2.2 Level AA</meta>, a summary, two modes,
            // textual sufficient, structural navigation.
            "daisy-epub30-test-0301.epub": """
            {"conformsTo": ["https://www.w3.org/TR/epub-a11y-11#wcag-2.2-aa"],
             "summary": "The publication contains structural and page navigation. The publication meets WCAG 2.0 Level AA.",
             "accessMode": ["textual", "visual"], "accessModeSufficient": [["textual"]], "feature": ["structuralNavigation"]}
            """,
            // Standard Ebooks: <link rel="dcterms:conformsTo" href="…accessibility-20170105.html#wcag-aa"/>, certified by Standard Ebooks.
            "palace-charles-dickens_great-expectations.epub": """
            {"conformsTo": ["http://www.idpf.org/epub/a11y/accessibility-20170105.html#wcag-aa"],
             "certification": {"certifiedBy": "Standard Ebooks"},
             "summary": "This publication conforms to WCAG 2.1 Level AA.",
             "accessMode": ["textual"], "accessModeSufficient": [["textual"]],
             "feature": ["alternativeText", "longDescription", "readingOrder", "structuralNavigation", "tableOfContents"],
             "hazard": ["none"]}
            """,
        ]
        // Every corpus book whose package document says anything about accessibility is named above.
        var declaring: Set<String> = []
        for book in CorpusBook.all where book.shouldIngest.hasPrefix("yes") {
            guard let archive = try? Archive(url: book.file, accessMode: .read, pathEncoding: nil) else { continue }
            for entry in archive where entry.path.hasSuffix(".opf") {
                var opf = Data()
                _ = try? archive.extract(entry) { opf.append($0) }
                let text = String(decoding: opf, as: UTF8.self)
                if text.contains("schema:access") || text.contains("a11y:certifiedBy") { declaring.insert(book.file.lastPathComponent) }
            }
        }
        #expect(declaring == Set(expected.keys), "corpus books that declare accessibility metadata: \(declaring.sorted())")
        let (app, _) = try await app()
        try await app.testRouter { client in
            for (name, json) in expected {
                let declared = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
                let book = try #require(CorpusBook.all.first { $0.file.lastPathComponent == name }, "\(name) is in the corpus")
                let (status, body) = try await ingest(client, book.file, query: "?open_access=true")
                #expect(status == .created, "\(name)")
                let id = try #require(body["id"] as? String)
                let publication = try await opds2(client, "/opds/books/\(id)")
                let a11y = try #require((publication["metadata"] as? [String: Any])?["accessibility"] as? [String: Any], "\(name)")
                #expect(NSDictionary(dictionary: a11y).isEqual(to: declared), "\(name): \(a11y)")
                let manifest = try await client.execute(uri: "/books/\(id)/manifest.json", method: .get) {
                    (try JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any]) ?? [:]
                }
                let inManifest = (manifest["metadata"] as? [String: Any])?["accessibility"] as? [String: Any] ?? [:]
                #expect(NSDictionary(dictionary: inManifest).isEqual(to: declared), "\(name) manifest")
                let entry = try await client.execute(uri: "/opds/books/\(id)", method: .get) { String(buffer: $0.body) }
                #expect(entry.contains("<schema:accessibilitySummary>Readable with a screen reader"), "\(name)")
                // The publication links its manifest (open access: for everyone), and `duration` is gone.
                let links = publication["links"] as? [[String: Any]] ?? []
                #expect(
                    links.contains {
                        $0["type"] as? String == "application/webpub+json" && ($0["href"] as? String)?.hasSuffix("/manifest.json") == true
                    }
                )
                #expect((publication["metadata"] as? [String: Any])?["duration"] == nil)
            }
        }
    }

    @Test func theAccessibilityFacetKeepsScreenReaderFriendlyOrHazardFreeBooks() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let friendly = try MinimalEPUB.write(
                title: "Zebra Friendly",
                metadata: #"<meta property="schema:accessModeSufficient">textual</meta><meta property="schema:accessibilityHazard">flashing</meta>"#
            )
            let calm = try MinimalEPUB.write(title: "Zebra Calm", metadata: #"<meta property="schema:accessibilityHazard">none</meta>"#)
            let plain = try MinimalEPUB.write(title: "Zebra Plain")
            for file in [friendly, calm, plain] { #expect(try await ingest(client, file).0 == .created) }
            func titles(_ uri: String) async throws -> [String] {
                let feed = try await opds2(client, uri)
                return (feed["publications"] as? [[String: Any]] ?? []).compactMap { ($0["metadata"] as? [String: Any])?["title"] as? String }
                    .sorted()
            }
            #expect(try await titles("/opds/lanes/new?accessibility=screen-reader") == ["Zebra Friendly"])
            #expect(try await titles("/opds/lanes/new?accessibility=no-hazards") == ["Zebra Calm"])
            #expect(try await titles("/opds/lanes/new?accessibility=all") == ["Zebra Calm", "Zebra Friendly", "Zebra Plain"])
            #expect(try await titles("/opds/search?q=zebra&accessibility=screen-reader") == ["Zebra Friendly"])
            #expect(try await titles("/opds/search?q=zebra&accessibility=no-hazards") == ["Zebra Calm"])
            #expect(try await client.execute(uri: "/opds/lanes/new?accessibility=braille", method: .get) { $0.status } == .badRequest)
            // The facet is offered, with the active choice marked, on lanes and on search results.
            let lane = try await opds2(client, "/opds/lanes/new?accessibility=no-hazards")
            let group = (lane["facets"] as? [[String: Any]] ?? []).first {
                ($0["metadata"] as? [String: Any])?["title"] as? String == "Accessibility"
            }
            let facetLinks = group?["links"] as? [[String: Any]] ?? []
            #expect(facetLinks.map { $0["title"] as? String } == ["All", "Screen-reader friendly", "No hazards"])
            #expect(facetLinks.first { $0["rel"] as? String == "self" }?["title"] as? String == "No hazards")
            let search = try await opds2(client, "/opds/search?q=zebra")
            let searchFacets = (search["facets"] as? [[String: Any]] ?? []).first {
                ($0["metadata"] as? [String: Any])?["title"] as? String == "Accessibility"
            }
            // Each of the search's facet links is the same search with that choice.
            var followed: [String: [String]] = [:]
            for link in searchFacets?["links"] as? [[String: Any]] ?? [] {
                let href = try #require(link["href"] as? String)
                let path = try #require(href.range(of: "/opds/search").map { String(href[$0.lowerBound...]) })
                followed[link["title"] as? String ?? ""] = try await titles(path)
            }
            #expect(
                followed == [
                    "All": ["Zebra Calm", "Zebra Friendly", "Zebra Plain"], "Screen-reader friendly": ["Zebra Friendly"],
                    "No hazards": ["Zebra Calm"],
                ]
            )
            try await validate(client, "/opds/lanes/new?accessibility=screen-reader", kind: "atom")
            try await validate(client, "/opds/lanes/new?accessibility=screen-reader", kind: "feed", json: true)
            try await validate(client, "/opds/search?q=zebra&accessibility=no-hazards", kind: "atom")
        }
    }

    @Test(.needsCorpus) func booksIngestedBeforeAreReadAgainFromTheirStoredEPUBByTheOneOffJob() async throws {
        let database = try await TestDatabase.create(prefix: "catalog")
        let config = TestConfig.base(["CATALOG_DATABASE_URL": database, "BLOB_DIR": blobs.path])
        try await buildCatalogApplication(config: config).testRouter { client in
            let book = try #require(CorpusBook.all.first { $0.file.lastPathComponent == "daisy-epub30-test-0301.epub" })
            let id = try #require(try await ingest(client, book.file).1["id"] as? String)
            // As the book was stored before accessibility metadata was read.
            try await TestDatabase.execute(
                "UPDATE books SET accessibility = NULL, screen_reader_friendly = false, page_count = NULL, reader_version = 0",
                on: database
            )
            let before = try await client.execute(uri: "/admin/books/\(id)", method: .get, headers: Self.admin) {
                (try? JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any]) ?? [:]
            }
            #expect(before["title"] != nil && before["accessibility"] == nil)

            #expect(try await MetadataReread.run(config: config) == 1)
            let metadata = (try await opds2(client, "/opds/books/\(id)"))["metadata"] as? [String: Any]
            #expect((metadata?["accessibility"] as? [String: Any])?["conformsTo"] as? [String] == ["https://www.w3.org/TR/epub-a11y-11#wcag-2.2-aa"])
            #expect(try await titlesIn(client, "/opds/lanes/new?accessibility=screen-reader") == [book.title.collapsingWhitespace])
            #expect(try await MetadataReread.run(config: config) == 0, "a second run finds nothing to do")
        }
    }

    func titlesIn(_ client: some TestClientProtocol, _ uri: String) async throws -> [String] {
        let feed = try await opds2(client, uri)
        return (feed["publications"] as? [[String: Any]] ?? []).compactMap { ($0["metadata"] as? [String: Any])?["title"] as? String }.sorted()
    }
}
