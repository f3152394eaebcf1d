import Foundation
import Testing

@testable import CatalogService

/// Other servers' OPDS 2.0 feeds and uploaded packages' manifests are read by one lenient reader: what it cannot use
/// (a member of another type, a list item that is not an object) counts as missing, never as an unreadable document.
@Suite struct WebPubDocumentTests {
    @Test func aFeedsGroupsLocalizedTitlesAndRelListsAreRead() throws {
        let json = #"""
            {"metadata": {"title": "Feed"}, "links": [{"rel": ["next", "x"], "href": "p2.json"}, {"rel": 7, "href": "odd.json"}],
             "publications": [
               {"metadata": {"title": {"fr": "Livre"}, "identifier": "urn:a", "author": [{"name": "Ada"}, "Bob", {"role": "x"}, ""]},
                "links": [{"rel": "http://opds-spec.org/acquisition", "href": "a.epub", "type": "application/epub+zip"}]},
               42, {"metadata": "not an object", "links": "not a list"}],
             "groups": [{"metadata": {"title": "G"}, "links": [{"rel": "self", "href": "g.json"}], "navigation": [{"href": "n.json"}]}]}
            """#
        let document = try #require(WebPubDocument.read(Data(json.utf8)))
        #expect(document.links.map(\.rels) == [["next", "x"], []])
        #expect(document.publications.count == 2)
        let book = document.publications[0]
        #expect(book.metadata.title == "Livre" && book.metadata.identifier == "urn:a" && book.metadata.authors == ["Ada", "Bob"])
        #expect(document.publications[1].links.isEmpty && document.publications[1].metadata.title == nil)
        #expect(document.groups.first?.links.first?.href == "g.json" && document.groups.first?.navigation.first?.href == "n.json")

        let page = try OPDSFeedPage.parse(Data(json.utf8), url: URL(string: "https://example.org/feeds/root.json")!)
        #expect(page.entries.map(\.title) == ["Livre"])
        #expect(page.follow.map(\.lastPathComponent) == ["n.json", "g.json", "p2.json"])
    }

    @Test func aPackagesManifestGivesItsOrderPeopleAndNestedContents() throws {
        let json = #"""
            {"metadata": {"title": "Heard", "author": "Ada", "narrator": [{"name": "Nora"}], "language": "en", "publisher": {"name": "Pub"}},
             "readingOrder": [{"href": "./one.mp3"}, {"href": 3}, {"href": "two.mp3#t=0"}],
             "toc": [{"href": "one.mp3", "title": "One", "children": [{"href": "two.mp3#t=5", "title": 5}]}]}
            """#
        let manifest = try PackageManifest.read(Data(json.utf8))
        #expect(manifest.title == "Heard" && manifest.authors == ["Ada"] && manifest.narrators == ["Nora"])
        #expect(manifest.languages == ["en"] && manifest.publisher == "Pub")
        #expect(manifest.readingOrder == ["one.mp3", "two.mp3"])
        let toc = try #require(manifest.toc(renamed: ["one.mp3": "01.mp3", "two.mp3": "02.mp3"]))
        #expect(toc.first?.href == "01.mp3" && toc.first?.children.first?.href == "02.mp3#t=5" && toc.first?.children.first?.title == "Untitled")
        #expect(throws: MediaError.self) { try PackageManifest.read(Data("[1]".utf8)) }
    }
}
