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
    private var tocEntries: [[String: Any]]

    static func read(_ data: Data) throws -> PackageManifest {
        guard let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw MediaError.badPackage("manifest.json is not a JSON object")
        }
        let metadata = document["metadata"] as? [String: Any] ?? [:]
        let order = (document["readingOrder"] as? [[String: Any]] ?? []).compactMap { $0["href"] as? String }.map(Self.path)
        guard !order.isEmpty else { throw MediaError.badPackage("manifest.json has no reading order") }
        guard order.allSatisfy(SafeArchive.isSafe), Set(order).count == order.count else {
            throw MediaError.badPackage("the reading order names a track twice, or outside the package")
        }
        return PackageManifest(
            title: (metadata["title"] as? String).flatMap { $0.isEmpty ? nil : $0 },
            authors: people(metadata["author"]),
            narrators: people(metadata["narrator"]),
            languages: (metadata["language"] as? String).map { [$0] } ?? metadata["language"] as? [String],
            publisher: people(metadata["publisher"])?.first,
            description: metadata["description"] as? String,
            readingOrder: order,
            tocEntries: document["toc"] as? [[String: Any]] ?? []
        )
    }

    /// The package's table of contents with its tracks renamed as stored; nil when it has none.
    func toc(renamed: [String: String]) -> [TOCEntry]? {
        func entries(_ list: [[String: Any]]) -> [TOCEntry] {
            list.compactMap { entry in
                guard let href = entry["href"] as? String else { return nil }
                let parts = href.split(separator: "#", maxSplits: 1)
                guard let track = renamed[Self.path(String(parts.first ?? ""))] else { return nil }
                let fragment = parts.count > 1 ? "#" + parts[1] : ""
                let title = (entry["title"] as? String).map { String($0.prefix(300)) } ?? "Untitled"
                return TOCEntry(title: title, href: track + fragment, children: entries(entry["children"] as? [[String: Any]] ?? []))
            }
        }
        let toc = entries(tocEntries)
        return toc.isEmpty ? nil : toc
    }

    /// A name, a contributor object, or a list of either.
    private static func people(_ value: Any?) -> [String]? {
        let list: [Any] = (value as? [Any]) ?? (value.map { [$0] } ?? [])
        let names = list.compactMap { ($0 as? String) ?? (($0 as? [String: Any])?["name"] as? String) }.filter { !$0.isEmpty }
        return names.isEmpty ? nil : names
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
