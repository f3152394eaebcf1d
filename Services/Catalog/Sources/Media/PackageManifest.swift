import Foundation
import Shared

/// The `manifest.json` of a Readium audiobook package: read from an uploaded package (its metadata and order win
/// over the tracks' tags), and written into the package catalog stores.
struct PackageManifest {
    var title: String?
    var authors: [String]?
    var narrators: [String]?
    var languages: [String]?
    var publisher: String?
    var description: String?
    /// The tracks' hrefs, in order, as paths inside the package.
    var readingOrder: [String]
    private var tocEntries: [WebPubDocument.Link]

    static func read(_ data: Data) throws -> PackageManifest {
        guard let document = WebPubDocument.read(data) else { throw MediaError.badPackage("manifest.json is not a JSON object") }
        let order = document.readingOrder.compactMap(\.href).map(Self.path)
        guard !order.isEmpty else { throw MediaError.badPackage("manifest.json has no reading order") }
        guard order.allSatisfy(SafeArchive.isSafe), Set(order).count == order.count else {
            throw MediaError.badPackage("the reading order names a track twice, or outside the package")
        }
        let metadata = document.metadata
        return PackageManifest(
            title: metadata.title.flatMap { $0.isEmpty ? nil : $0 },
            authors: metadata.authors.isEmpty ? nil : metadata.authors,
            narrators: metadata.narrators.isEmpty ? nil : metadata.narrators,
            languages: metadata.languages,
            publisher: metadata.publishers.first,
            description: metadata.description,
            readingOrder: order,
            tocEntries: document.toc
        )
    }

    /// The package's table of contents with its tracks renamed as stored; nil when it has none.
    func toc(renamed: [String: String]) -> [TOCEntry]? {
        func entries(_ list: [WebPubDocument.Link]) -> [TOCEntry] {
            list.compactMap { entry in
                guard let href = entry.href else { return nil }
                let parts = href.split(separator: "#", maxSplits: 1)
                guard let track = renamed[Self.path(String(parts.first ?? ""))] else { return nil }
                let fragment = parts.count > 1 ? "#" + parts[1] : ""
                return TOCEntry(
                    title: entry.title.map { String($0.prefix(300)) } ?? "Untitled",
                    href: track + fragment,
                    children: entries(entry.children)
                )
            }
        }
        let toc = entries(tocEntries)
        return toc.isEmpty ? nil : toc
    }

    /// An href relative to the package's root, without `./` or a fragment.
    private static func path(_ href: String) -> String {
        var path = String(href.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        while path.hasPrefix("./") { path.removeFirst(2) }
        return path.removingPercentEncoding ?? path
    }

    /// The manifest written into a stored package: relative hrefs, so that an app can play the file offline.
    static func document(_ book: ParsedBook) -> String {
        String(decoding: JSONWriter.bytes(of: ReadiumManifest(package: book)), as: UTF8.self)
    }
}
