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

/// Series and author feeds, linked from every publication of the series or by the author.
extension CatalogServiceTests {
    static func seriesMetadata(_ series: String, position: Int) -> String {
        """
        <meta property="belongs-to-collection" id="series">\(series)</meta>
        <meta refines="#series" property="collection-type">series</meta><meta refines="#series" property="group-position">\(position)</meta>
        """
    }

    @Test func aSeriesFeedListsItsBooksInSeriesOrderAndPublicationsLinkIt() async throws {
        let (app, _) = try await app()
        try await app.testRouter { client in
            let series = "The \"Quoted\" 100% Saga"
            for (title, position) in [("Third Voyage", 3), ("First Voyage", 1), ("Second Voyage", 2)] {
                let file = try MinimalEPUB.write(title: title, author: "Ann O'Brien", metadata: Self.seriesMetadata(series, position: position))
                #expect(try await ingest(client, file).0 == .created)
            }
            let other = try MinimalEPUB.write(title: "Elsewhere", author: "Someone Else", metadata: Self.seriesMetadata("Another Saga", position: 1))
            #expect(try await ingest(client, other).0 == .created)

            let seriesPath = Lane.series(series).path
            #expect(seriesPath == "/opds/series/The%20%22Quoted%22%20100%25%20Saga")
            func titles(_ uri: String) async throws -> [String] {
                let feed = try await opds2(client, uri)
                return (feed["publications"] as? [[String: Any]] ?? []).compactMap { ($0["metadata"] as? [String: Any])?["title"] as? String }
            }
            #expect(try await titles(seriesPath) == ["First Voyage", "Second Voyage", "Third Voyage"], "in series order")
            #expect(try await titles(seriesPath + "?sort=series&order=desc") == ["Third Voyage", "Second Voyage", "First Voyage"])
            #expect(try await titles(Lane.author("Ann O'Brien").path) == ["First Voyage", "Second Voyage", "Third Voyage"])
            #expect(try await titles("/opds/authors/Nobody").isEmpty)
            #expect(try await client.execute(uri: "/opds/series/" + String(repeating: "x", count: 301), method: .get) { $0.status } == .badRequest)
            // Paging by keyset in series order.
            let first = try await opds2(client, seriesPath + "?size=2")
            let next = try #require(links(first).first { $0.rel == "next" }?.href)
            #expect(try await titles(String(next.dropFirst("http://127.0.0.1:8080".count))) == ["Third Voyage"])

            // Publications link the series and the author; OPDS 1.2 entries too.
            let lane = try await opds2(client, "/opds/lanes/new")
            let publication = try #require(
                (lane["publications"] as? [[String: Any]])?.first { ($0["metadata"] as? [String: Any])?["title"] as? String == "Second Voyage" }
            )
            let metadata = publication["metadata"] as? [String: Any]
            let belongsTo = ((metadata?["belongsTo"] as? [String: Any])?["series"] as? [[String: Any]])?.first
            #expect(belongsTo?["name"] as? String == series && belongsTo?["position"] as? Double == 2)
            #expect(((belongsTo?["links"] as? [[String: Any]])?.first?["href"] as? String)?.hasSuffix(seriesPath) == true)
            let author = (metadata?["author"] as? [[String: Any]])?.first
            #expect(((author?["links"] as? [[String: Any]])?.first?["href"] as? String)?.hasSuffix("/opds/authors/Ann%20O'Brien") == true)
            let atom = try await client.execute(uri: "/opds/lanes/new", method: .get) { String(buffer: $0.body) }
            #expect(atom.contains("<uri>http://127.0.0.1:8080/opds/authors/Ann%20O'Brien</uri>"))
            #expect(atom.contains(#"rel="related" href="http://127.0.0.1:8080\#(seriesPath)""#))

            // Related books: the rest of the series in order, then the author's other books, each book once.
            let fourth = try MinimalEPUB.write(title: "A Stand-alone Tale", author: "Ann O'Brien")
            #expect(try await ingest(client, fourth).0 == .created)
            let secondID = try #require((publication["metadata"] as? [String: Any])?["identifier"] as? String).replacingOccurrences(
                of: "urn:uuid:",
                with: ""
            )
            let relatedLink = (publication["links"] as? [[String: Any]] ?? []).first { $0["rel"] as? String == "related" }?["href"] as? String
            #expect(relatedLink?.hasSuffix("/opds/books/\(secondID)/related") == true)
            let related = try await opds2(client, "/opds/books/\(secondID)/related")
            let groups = (related["groups"] as? [[String: Any]] ?? []).map { group in
                (
                    (group["metadata"] as? [String: Any])?["title"] as? String ?? "",
                    (group["publications"] as? [[String: Any]] ?? []).compactMap { ($0["metadata"] as? [String: Any])?["title"] as? String }
                )
            }
            #expect(groups.map(\.0) == ["More in \(series)", "More by Ann O'Brien"])
            #expect(groups.first?.1 == ["First Voyage", "Third Voyage"] && groups.last?.1 == ["A Stand-alone Tale"])
            #expect(try await client.execute(uri: "/opds/books/\(UUID())/related", method: .get) { $0.status } == .notFound)

            for uri in [seriesPath, Lane.author("Ann O'Brien").path, "/opds/lanes/new", "/opds/books/\(secondID)/related"] {
                try await validate(client, uri, kind: "atom")
                try await validate(client, uri, kind: "feed", json: true)
            }
        }
    }

    func links(_ feed: [String: Any]) -> [(rel: String, href: String)] {
        (feed["links"] as? [[String: Any]] ?? []).compactMap { link in
            guard let rel = link["rel"] as? String, let href = link["href"] as? String else { return nil }
            return (rel, href)
        }
    }

    static let contributorMetadata = ##"""
        <dc:contributor id="t">Tess Lator</dc:contributor><meta refines="#t" property="role" scheme="marc:relators">trl</meta>
        <dc:contributor id="e">Ed Itor</dc:contributor><meta refines="#e" property="role" scheme="marc:relators">edt</meta>
        <dc:contributor xmlns:opf="http://www.idpf.org/2007/opf" opf:role="ill" opf:file-as="Drew, Ida">Ida Drew</dc:contributor>
        <dc:contributor xmlns:opf="http://www.idpf.org/2007/opf" opf:role="nrt">Nora Reader</dc:contributor>
        <dc:contributor id="x">Xavier Other</dc:contributor><meta refines="#x" property="role" scheme="marc:relators">pbl</meta>
        """##

    @Test func contributorRolesFromEpub3RefinementsAndEpub2AttributesReachBothFeeds() async throws {
        let book = try SeriesParsingTests().parse(Self.contributorMetadata)
        let roles = Dictionary(book.contributors.map { ($0.name, $0.role) }, uniquingKeysWith: { a, _ in a })
        #expect(roles["Tess Lator"] == "trl" && roles["Ed Itor"] == "edt" && roles["Ida Drew"] == "ill" && roles["Nora Reader"] == "nrt")
        #expect(book.contributors.first { $0.name == "Ida Drew" }?.sortAs == "Drew, Ida")

        let (app, _) = try await app()
        try await app.testRouter { client in
            let file = try MinimalEPUB.write(title: "Many Hands", author: "Ann Author", metadata: Self.contributorMetadata)
            #expect(try await ingest(client, file).0 == .created)
            let lane = try await opds2(client, "/opds/lanes/new")
            let metadata = try #require((lane["publications"] as? [[String: Any]])?.first?["metadata"] as? [String: Any])
            func names(_ key: String) -> [String] { (metadata[key] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } }
            #expect(names("author") == ["Ann Author"])
            #expect(names("translator") == ["Tess Lator"] && names("editor") == ["Ed Itor"])
            #expect(names("illustrator") == ["Ida Drew"] && names("narrator") == ["Nora Reader"])
            #expect((metadata["contributor"] as? [[String: Any]])?.first?["role"] as? String == "pbl")
            let atom = try await client.execute(uri: "/opds/lanes/new", method: .get) { String(buffer: $0.body) }
            #expect(atom.contains(#"<contributor opf:role="trl"><name>Tess Lator</name></contributor>"#))
            #expect(atom.contains(#"<contributor opf:role="ill"><name>Ida Drew</name></contributor>"#))
            #expect(atom.contains(#"xmlns:opf="http://www.idpf.org/2007/opf""#))
        }
    }
}

/// Series as EPUB 3 and calibre declare them.
@Suite struct SeriesParsingTests {
    func parse(_ metadata: String) throws -> ParsedBook {
        var parser = try EPUBParser(url: try MinimalEPUB.write(title: "A Book", metadata: metadata))
        return try parser.parse()
    }

    @Test func anEpub3SeriesIsTheCollectionTypedSeriesNotASet() throws {
        let book = try parse(
            """
            <meta property="belongs-to-collection" id="set">The Boxed Set</meta><meta refines="#set" property="collection-type">set</meta>
            <meta property="belongs-to-collection" id="s">The Saga</meta><meta refines="#s" property="collection-type">series</meta>
            <meta refines="#s" property="group-position">4.5</meta>
            """
        )
        #expect(book.series == "The Saga" && book.seriesPosition == 4.5)
        #expect(
            try parse(
                ##"<meta property="belongs-to-collection" id="set">Only A Set</meta><meta refines="#set" property="collection-type">set</meta>"##
            ).series == nil
        )
    }

    @Test func calibreSeriesAndRolesAreReadFromAnEpub2File() throws {
        let metadata = ##"""
            <meta name="calibre:series" content="Discworld"/><meta name="calibre:series_index" content="7"/>
            <dc:contributor opf:role="trl" opf:file-as="Lator, Tess">Tess Lator</dc:contributor>
            """##
        var parser = try EPUBParser(url: try MinimalEPUB.write(title: "Guards! Guards!", author: "T. Pratchett", metadata: metadata, epub2: true))
        let book = try parser.parse()
        #expect(book.series == "Discworld" && book.seriesPosition == 7)
        #expect(book.contributors.contains(Contributor(name: "Tess Lator", sortAs: "Lator, Tess", role: "trl")))
    }
}
