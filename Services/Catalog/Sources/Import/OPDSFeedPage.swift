import Foundation

/// One page of an OPDS 1.2 (Atom) or OPDS 2.0 (JSON) feed, as an import walks it: the books it offers as EPUB
/// acquisitions (open-access or generic), and the pages to read next (`next`, navigation, groups' own pages).
struct OPDSFeedPage: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        /// The feed's identifier of the book (Atom `id`, OPDS 2 `metadata.identifier`, else its acquisition URL).
        let id: String
        let title: String
        let acquisition: URL
    }

    var entries: [Entry] = []
    var follow: [URL] = []

    struct Unreadable: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    static let acquisitionRels: Set<String> = ["http://opds-spec.org/acquisition", "http://opds-spec.org/acquisition/open-access"]

    /// Parses `data`, read from `url` (relative links resolve against it).
    static func parse(_ data: Data, url: URL) throws -> OPDSFeedPage {
        guard let first = data.first(where: { !" \n\r\t".utf8.contains($0) }) else { throw Unreadable(reason: "an empty page") }
        return first == UInt8(ascii: "{") ? try parseJSON(data, url: url) : try parseAtom(data, url: url)
    }

    static func isEPUB(_ type: String?) -> Bool { type?.lowercased().hasPrefix("application/epub+zip") == true }

    // MARK: OPDS 2.0

    static func parseJSON(_ data: Data, url: URL) throws -> OPDSFeedPage {
        guard let feed = WebPubDocument.read(data) else { throw Unreadable(reason: "not a JSON object") }
        var page = OPDSFeedPage()
        func resolve(_ href: String?) -> URL? { href.flatMap { URL(string: $0, relativeTo: url)?.absoluteURL } }
        func publications(_ list: [WebPubDocument]) {
            for publication in list {
                guard let link = publication.links.first(where: { isEPUB($0.type) && !Set($0.rels).isDisjoint(with: acquisitionRels) }),
                    let acquisition = resolve(link.href)
                else { continue }
                let metadata = publication.metadata
                page.entries.append(
                    Entry(id: metadata.identifier ?? acquisition.absoluteString, title: metadata.title ?? "Untitled", acquisition: acquisition)
                )
            }
        }
        func navigation(_ links: [WebPubDocument.Link]) {
            for link in links { if let target = resolve(link.href) { page.follow.append(target) } }
        }
        publications(feed.publications)
        navigation(feed.navigation)
        for group in feed.groups {
            publications(group.publications)
            navigation(group.navigation)
            // A group is a preview: its own page has every book.
            navigation(group.links.filter { $0.rels.contains("self") })
        }
        navigation(feed.links.filter { $0.rels.contains("next") })
        return page
    }

    // MARK: OPDS 1.2

    static func parseAtom(_ data: Data, url: URL) throws -> OPDSFeedPage {
        let root: XMLNode
        do { root = try XMLNode.parse(data, path: url.absoluteString) } catch { throw Unreadable(reason: "not well-formed XML: \(error)") }
        guard root.name == "feed" else { throw Unreadable(reason: "not an Atom feed (its root is \(root.name))") }
        var page = OPDSFeedPage()
        func resolve(_ href: String?) -> URL? { href.flatMap { URL(string: $0, relativeTo: url)?.absoluteURL } }
        func isCatalog(_ type: String?) -> Bool { type?.lowercased().contains("profile=opds-catalog") == true }
        for link in root.children("link") where link["rel"] == "next" {
            if let target = resolve(link["href"]) { page.follow.append(target) }
        }
        for entry in root.children("entry") {
            let links = entry.children("link")
            if let acquisition = links.first(where: { acquisitionRels.contains($0["rel"] ?? "") && isEPUB($0["type"]) }),
                let target = resolve(acquisition["href"])
            {
                let id = entry.child("id")?.allText ?? target.absoluteString
                page.entries.append(
                    Entry(id: id.isEmpty ? target.absoluteString : id, title: entry.child("title")?.allText ?? "Untitled", acquisition: target)
                )
            } else {
                // A navigation entry: its catalog link is another page to read.
                for link in links where isCatalog(link["type"]) && !["self", "alternate", "up", "start", "search"].contains(link["rel"] ?? "") {
                    if let target = resolve(link["href"]) { page.follow.append(target) }
                }
            }
        }
        return page
    }
}
