import Foundation

/// Reads the table of contents (EPUB 3 nav document preferred, EPUB 2 NCX otherwise, the spine as a last resort),
/// the page list and the landmarks, with nesting kept and hrefs resolved against the package.
struct TOCReader {
    let archive: SafeArchive

    typealias Manifest = [String: (href: String, type: String, properties: [String])]

    func read(
        manifest: Manifest,
        spineTOC: String?,
        readingOrder: [PackageResource],
        warnings: inout [String]
    )
        -> (toc: [TOCEntry], pageList: [TOCEntry], landmarks: [TOCEntry])
    {
        let known = Set(manifest.values.map(\.href))
        if let nav = manifest.values.first(where: { $0.properties.contains("nav") }) {
            do {
                if let data = try archive.read(nav.href) {
                    let root = try XMLNode.parse(data, path: nav.href)
                    let base = EPUBParser.directory(of: nav.href)
                    var lists: [String: [TOCEntry]] = [:]
                    for navNode in root.descendants("nav") {
                        let kind = navNode["type"] ?? ""
                        guard let list = navNode.child("ol") ?? navNode.descendants("ol").first else { continue }
                        lists[kind] = entries(ol: list, base: base, known: known, warnings: &warnings)
                    }
                    if let toc = lists["toc"], !toc.isEmpty { return (toc, lists["page-list"] ?? [], lists["landmarks"] ?? []) }
                    warnings.append("the navigation document has no toc")
                } else {
                    warnings.append("the navigation document \(nav.href) is missing")
                }
            } catch {
                warnings.append("the navigation document could not be read: \(error)")
            }
        }
        let ncx = spineTOC.flatMap { manifest[$0] } ?? manifest.values.first { $0.type == "application/x-dtbncx+xml" }
        if let ncx {
            do {
                if let data = try archive.read(ncx.href) {
                    let root = try XMLNode.parse(data, path: ncx.href)
                    let base = EPUBParser.directory(of: ncx.href)
                    let toc = (root.child("navMap")?.children("navPoint") ?? []).map { navPoint($0, base: base, known: known, warnings: &warnings) }
                    let pages = (root.child("pageList")?.children("pageTarget") ?? []).map {
                        navPoint($0, base: base, known: known, warnings: &warnings)
                    }
                    if !toc.isEmpty { return (toc, pages, []) }
                } else {
                    warnings.append("the NCX \(ncx.href) is missing")
                }
            } catch {
                warnings.append("the NCX could not be read: \(error)")
            }
        }
        warnings.append("no table of contents; the reading order stands in for it")
        return (readingOrder.enumerated().map { TOCEntry(title: "Section \($0.offset + 1)", href: $0.element.href, children: []) }, [], [])
    }

    private func entries(ol: XMLNode, base: String, known: Set<String>, warnings: inout [String]) -> [TOCEntry] {
        ol.children("li").compactMap { li in
            let anchor = li.child("a") ?? li.child("span")
            let children = li.child("ol").map { entries(ol: $0, base: base, known: known, warnings: &warnings) } ?? []
            guard let anchor else { return children.isEmpty ? nil : TOCEntry(title: "", href: "", children: children) }
            return TOCEntry(
                title: anchor.allText,
                href: resolve(anchor["href"] ?? "", base: base, known: known, warnings: &warnings),
                children: children
            )
        }
    }

    private func navPoint(_ node: XMLNode, base: String, known: Set<String>, warnings: inout [String]) -> TOCEntry {
        let title = node.child("navLabel")?.allText ?? ""
        let src = node.child("content")?["src"] ?? ""
        return TOCEntry(
            title: title,
            href: resolve(src, base: base, known: known, warnings: &warnings),
            children: node.children("navPoint").map { navPoint($0, base: base, known: known, warnings: &warnings) }
        )
    }

    /// The href resolved against the package, fragment kept; checked against the manifest.
    private func resolve(_ href: String, base: String, known: Set<String>, warnings: inout [String]) -> String {
        guard !href.isEmpty else { return "" }
        let fragment = href.firstIndex(of: "#").map { String(href[$0...]) } ?? ""
        guard let path = EPUBParser.resolve(href, against: base) else {
            if href.hasPrefix("#") { return href }
            warnings.append("a table-of-contents link leaves the book: \(href.prefix(100))")
            return ""
        }
        if !known.contains(path) { warnings.append("a table-of-contents link points outside the manifest: \(path)") }
        return path + fragment
    }
}
