import Foundation
import Shared
import Testing

@testable import CatalogService

/// The typed OPDS 2.0 and Readium documents (`OPDS2Feed`, `OPDS2Publication`, `ReadiumManifest`) write their keys in
/// the order `JSONSerialization` sorts them and its number forms, so that their bytes are what the dictionaries they
/// replaced wrote: each document, with every member filled in, read back and written again by Foundation with sorted
/// keys, is the same bytes.
@Suite struct WebPublicationWritingTests {
    static let base = "https://library.example"

    static func richBook() -> BookEntry {
        var book = EntryLinksTests.book(available: 0)
        book.metadata.subtitle = "A \"quoted\" subtitle / with a slash"
        book.metadata.contributors = [
            Contributor(name: "Ada Author", sortAs: "Author, Ada", role: "aut"),
            Contributor(name: "Nora Narrator", sortAs: "Narrator, Nora", role: "nrt"),
            Contributor(name: "Eve Editor", role: "edt"), Contributor(name: "Una Unknown", role: "xyz"),
            Contributor(name: "Tom Translator", role: "trl"),
        ]
        book.metadata.languages = ["en", "fr"]
        book.metadata.publisher = "Publisher"
        book.metadata.published = "2001-09-11"
        book.metadata.description = "Described.\nOn two lines."
        book.metadata.subjects = ["Fiction"]
        book.metadata.genres = ["Mystery"]
        book.metadata.series = "The Series"
        book.metadata.seriesPosition = 2.5
        book.metadata.pageProgression = "rtl"
        book.metadata.fixedLayout = true
        book.metadata.wordCount = 90_000
        book.metadata.duration = 3_600.25
        book.metadata.accessibility = Accessibility(
            conformsTo: ["http://www.idpf.org/epub/a11y/accessibility-20170105.html#wcag-aa"],
            certification: .init(certifiedBy: "Certifier", credential: nil, report: "https://example.org/report"),
            summary: "Summary.",
            accessMode: ["textual", "visual"],
            accessModeSufficient: [["textual"], ["auditory", "visual"]],
            feature: ["alternativeText"],
            hazard: ["none"]
        )
        book.hasCover = true
        book.coverType = "image/png"
        book.thumbnailType = "image/jpeg"
        book.ratingAverage = 4.25
        book.ratingCount = 3
        book.pageCount = 312
        return book
    }

    /// `bytes` read back and written again by Foundation with sorted keys.
    func foundationsBytes(_ bytes: [UInt8]) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(bytes))
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }

    func expectSorted(_ bytes: [UInt8], _ what: String) throws {
        #expect(try foundationsBytes(bytes) == String(decoding: bytes, as: UTF8.self), "\(what)")
    }

    @Test func publicationsInEveryStateWriteFoundationsBytes() throws {
        for state in [nil] + BookState.allCases {
            let view = state.map {
                PatronBookView(bookId: EntryLinksTests.id, state: $0, holdPosition: 2, dueAt: Date(), offerExpiresAt: Date(), since: Date())
            }
            let entry = Entry(book: Self.richBook(), view: view, publicURL: Self.base)
            try expectSorted(JSONWriter.bytes(of: OPDS2Renderer.publication(entry)), "\(String(describing: state))")
        }
    }

    /// Each role OPDS 2.0 names has its key (placed by hand among the others in sorted order), any other role is a
    /// `contributor` with its role: no contributor is left out of a publication.
    @Test func everyContributorIsWrittenUnderItsRolesKey() throws {
        var book = EntryLinksTests.book()
        let roles = WebPubMetadata.roleKeys.keys.sorted() + ["xyz"]
        book.metadata.contributors = roles.map { Contributor(name: "Person \($0)", role: $0) }
        let bytes = JSONWriter.bytes(of: OPDS2Renderer.publication(Entry(book: book, view: nil, publicURL: Self.base)))
        let metadata = try #require((try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])?["metadata"] as? [String: Any])
        for role in roles {
            let people = metadata[WebPubMetadata.roleKeys[role] ?? "contributor"] as? [[String: Any]]
            #expect(people?.first?["name"] as? String == "Person \(role)", "\(role)")
        }
        #expect((metadata["contributor"] as? [[String: Any]])?.first?["role"] as? String == "xyz")
        try expectSorted(bytes, "every role")
    }

    @Test func feedsWithFacetsGroupsAndNavigationWriteFoundationsBytes() throws {
        let entries = [
            Entry(book: Self.richBook(), view: nil, publicURL: Self.base), Entry(book: EntryLinksTests.book(), view: nil, publicURL: Self.base),
        ]
        var feed = Feed(
            id: "feed",
            title: "A \"feed\"",
            kind: .acquisition,
            links: [
                Feed.Link(rel: "self", href: "\(Self.base)/a", type: MediaType.acquisition),
                Feed.Link(rel: "start", href: "\(Self.base)/", type: MediaType.navigation, title: "Start"),
                Feed.Link(rel: "search", href: "\(Self.base)/search.xml", type: "application/opensearchdescription+xml"),
                .facet("\(Self.base)/by-title", title: "Title", group: "Sort by", active: true),
                Feed.Link(
                    rel: "http://opds-spec.org/facet",
                    href: "\(Self.base)/pdf",
                    type: MediaType.acquisition,
                    title: "PDF",
                    facetGroup: "Format",
                    count: 7
                ),
            ],
            navigation: [Feed.Link(rel: "subsection", href: "\(Self.base)/n", type: MediaType.navigation, title: "N", count: 2)],
            entries: entries,
            groups: [Feed.Group(title: "Group", href: "\(Self.base)/g", entries: entries)],
            totalResults: 2,
            itemsPerPage: 50
        )
        try expectSorted(JSONWriter.bytes(of: OPDS2Renderer.feed(feed, publicURL: Self.base)), "feed")
        (feed.navigation, feed.entries, feed.groups) = ([], [], [])
        let empty = JSONWriter.bytes(of: OPDS2Renderer.feed(feed, publicURL: Self.base))
        try expectSorted(empty, "empty feed")
        #expect(String(decoding: empty, as: UTF8.self).contains("Nothing here yet"))
    }

    @Test func manifestsWriteFoundationsBytes() throws {
        let navigation = BookNavigation(
            readingOrder: [PackageResource(href: "text/one two.xhtml", type: "application/xhtml+xml", properties: [])],
            resources: [
                PackageResource(href: "text/one two.xhtml", type: "application/xhtml+xml", properties: []),
                PackageResource(href: "cover.png", type: "image/png", properties: ["cover-image"]),
            ],
            toc: [
                TOCEntry(title: "One", href: "text/one two.xhtml", children: [TOCEntry(title: "Part", href: "text/one two.xhtml#p", children: [])])
            ],
            pageList: [TOCEntry(title: "1", href: "text/one two.xhtml#page1", children: [])],
            landmarks: [TOCEntry(title: "Start", href: "text/one two.xhtml", children: [])]
        )
        let record = BookRecord(
            entry: Self.richBook(),
            epubSha256: "ab",
            epubSize: 1,
            featured: false,
            staffPick: false,
            checkouts: 0,
            edition: 1,
            addedAt: Date(),
            warnings: [],
            coverSource: nil,
            navigation: navigation
        )
        let manifest = JSONWriter.bytes(of: ReadiumManifest(record, publicURL: Self.base))
        try expectSorted(manifest, "manifest")
        #expect(String(decoding: manifest, as: UTF8.self).contains("/text/one%20two.xhtml"))

        var parsed = ParsedBook(
            format: .audiobook,
            title: "Heard",
            contributors: [Contributor(name: "Ada Author", role: "aut"), Contributor(name: "Nora Narrator", role: "nrt")],
            languages: ["en"],
            published: nil,
            description: nil,
            subjects: [],
            readingOrder: [PackageResource(href: "01.mp3", type: "audio/mpeg", properties: [], duration: 12.5, title: "One")],
            toc: [TOCEntry(title: "One", href: "01.mp3", children: [TOCEntry(title: "Later", href: "01.mp3#t=3", children: [])])]
        )
        parsed.duration = 12.5
        try expectSorted(Array(PackageManifest.document(parsed).utf8), "package manifest")
    }
}
