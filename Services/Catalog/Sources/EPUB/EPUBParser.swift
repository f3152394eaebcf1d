import Foundation
import Shared

/// Reads an EPUB 2 or 3 file: container → package document → metadata, reading order, cover, table of contents
/// and word count. Lenient where real books are sloppy (warnings), strict where a file is broken or hostile.
struct EPUBParser {
    let archive: SafeArchive
    let url: URL
    private(set) var warnings: [String] = []

    init(url: URL) throws {
        archive = try SafeArchive(url: url)
        self.url = url
        for path in archive.duplicates { warnings.append("the archive has two entries named \(path); the first was read") }
    }

    mutating func parse() throws -> ParsedBook {
        checkMimetype()
        guard let containerData = try archive.read("META-INF/container.xml") else { throw EPUBError.missingContainer }
        let container: XMLNode
        do { container = try XMLNode.parse(containerData, path: "META-INF/container.xml") } catch let error as XMLNode.Malformed {
            throw EPUBError.unreadablePackage(error.description)
        }
        let rootfiles = container.descendants("rootfile").compactMap { $0["full-path"] }
        guard !rootfiles.isEmpty else { throw EPUBError.missingPackage("(none named)") }
        guard let opfPath = rootfiles.first(where: { archive.contains($0) }) else { throw EPUBError.missingPackage(rootfiles[0]) }
        if rootfiles.count > 1 { warnings.append("container.xml names \(rootfiles.count) package documents; the first usable one was read") }
        guard let opfData = try archive.read(opfPath) else { throw EPUBError.unreadablePackage("\(opfPath) cannot be extracted") }
        let opf: XMLNode
        do { opf = try XMLNode.parse(opfData, path: opfPath) } catch let error as XMLNode.Malformed {
            throw EPUBError.unreadablePackage(error.description)
        }
        let base = Self.directory(of: opfPath)
        guard let metadata = opf.child("metadata") ?? opf.descendants("metadata").first else { throw EPUBError.unreadablePackage("no <metadata>") }

        // Manifest and spine
        var manifest: [String: (href: String, type: String, properties: [String])] = [:]
        var resources: [PackageResource] = []
        for item in opf.child("manifest")?.children("item") ?? [] {
            guard let id = item["id"], let href = item["href"] else { continue }
            guard let path = Self.resolve(href, against: base) else {
                warnings.append("manifest item \(id) has an unsafe href and was ignored")
                continue
            }
            let properties = (item["properties"] ?? "").split(separator: " ").map(String.init)
            manifest[id] = (path, item["media-type"] ?? "application/octet-stream", properties)
            resources.append(PackageResource(href: path, type: item["media-type"] ?? "application/octet-stream", properties: properties))
            if !archive.contains(path) { warnings.append("manifest item \(path) is missing from the archive") }
        }
        let spine = opf.child("spine")
        let readingOrder: [PackageResource] = (spine?.children("itemref") ?? []).compactMap { ref in
            guard let id = ref["idref"], let item = manifest[id] else { return nil }
            return PackageResource(href: item.href, type: item.type, properties: item.properties)
        }

        // Metadata
        let uniqueIdentifier = metadata.children("identifier").first { $0["id"] != nil && $0["id"] == opf["unique-identifier"] }?.allText
        try readEncryption(uniqueIdentifier: uniqueIdentifier ?? "", resources: &resources)
        let refinements = Self.refinements(metadata)
        let titles = metadata.children("title")
        guard let titleNode = titles.first(where: { !$0.allText.isEmpty }) else { throw EPUBError.noTitle }
        let subtitle = titles.first { node in node["id"].map { refinements[$0]?["title-type"] == "subtitle" } ?? false }?.allText
        var contributors: [Contributor] = []
        for node in metadata.children("creator") + metadata.children("contributor") {
            let name = node.allText
            guard !name.isEmpty else { continue }
            let refined = node["id"].flatMap { refinements[$0] } ?? [:]
            let role = node["role"] ?? refined["role"] ?? (node.name == "creator" ? "aut" : "ctb")
            contributors.append(Contributor(name: name, sortAs: node["file-as"] ?? refined["file-as"], role: role))
        }
        let identifiers = metadata.children("identifier").map(\.allText).filter { !$0.isEmpty }
        let isbn = identifiers.lazy.compactMap(ISBN.normalized).first
        let subjects = metadata.children("subject").map(\.allText).filter { !$0.isEmpty }
        let metas = metadata.children("meta")
        let calibreSeries = metas.first { $0["name"] == "calibre:series" }?["content"]
        // A collection typed "series" first; an untyped one is taken as a series too, a "set" (a boxed set) is not.
        let collections = metas.filter { $0["property"] == "belongs-to-collection" && !$0.allText.isEmpty }
        func collectionType(_ node: XMLNode) -> String? { node["id"].flatMap { refinements[$0]?["collection-type"] } }
        let collection = collections.first { collectionType($0) == "series" } ?? collections.first { collectionType($0) == nil }
        let series = collection?.allText ?? calibreSeries
        var seriesPosition: Double?
        if let id = collection?["id"], let position = refinements[id]?["group-position"] { seriesPosition = Double(position) }
        if seriesPosition == nil { seriesPosition = metas.first { $0["name"] == "calibre:series_index" }?["content"].flatMap(Double.init) }
        let fixedLayout = metas.contains { $0["property"] == "rendition:layout" && $0.allText == "pre-paginated" }
        let description = metadata.child("description").map { HTMLText.plain(from: $0.allText) }

        let cover = findCover(metadata: metadata, opf: opf, manifest: manifest, readingOrder: readingOrder)
        let (toc, pageList, landmarks) = TOCReader(archive: archive).read(
            manifest: manifest.mapValues { ($0.href, $0.type, $0.properties) },
            spineTOC: spine?["toc"],
            readingOrder: readingOrder,
            warnings: &warnings
        )
        var words = 0
        for item in readingOrder where item.type.contains("html") {
            if let data = try? archive.read(item.href, limit: 16 << 20) { words += HTMLText.wordCount(data) }
        }

        var book = ParsedBook(
            metadata: BookMetadata(
                title: titleNode.allText,
                subtitle: subtitle,
                contributors: contributors,
                languages: metadata.children("language").map(\.allText).filter { !$0.isEmpty },
                publisher: metadata.child("publisher")?.allText,
                published: metadata.child("date")?.allText,
                description: description,
                subjects: subjects,
                genres: Genres.genres(for: subjects),
                isbn: isbn,
                identifiers: identifiers,
                series: series,
                seriesPosition: seriesPosition,
                pageProgression: spine?["page-progression-direction"],
                fixedLayout: fixedLayout,
                wordCount: words,
                accessibility: AccessibilityReader.read(metadata),
                format: .epub
            ),
            navigation: BookNavigation(readingOrder: readingOrder, resources: resources, toc: toc, pageList: pageList, landmarks: landmarks),
            cover: cover,
            koreaderDigest: try KOReaderDigest.of(file: url),
            warnings: warnings
        )
        // EPUB 3's `<meta property>` or EPUB 2's `<meta name content>`.
        book.ageRange =
            metas.first { $0["property"] == "schema:typicalAgeRange" }?.allText
            ?? metas.first { $0["name"] == "schema:typicalAgeRange" }?["content"]
        return book
    }

    /// Marks the fonts that META-INF/encryption.xml says are obfuscated, so that they can be served as fonts;
    /// a resource under real encryption only gets a warning (nobody here has its key).
    private mutating func readEncryption(uniqueIdentifier: String, resources: inout [PackageResource]) throws {
        guard let data = try archive.read("META-INF/encryption.xml") else { return }
        let document: XMLNode
        do { document = try XMLNode.parse(data, path: "META-INF/encryption.xml") } catch let error as XMLNode.Malformed {
            warnings.append("META-INF/encryption.xml is unreadable (\(error.description)); it was ignored")
            return
        }
        for encrypted in document.descendants("EncryptedData") {
            guard let algorithm = encrypted.descendants("EncryptionMethod").first?["Algorithm"],
                let uri = encrypted.descendants("CipherReference").first?["URI"]
            else { continue }
            let path = uri.removingPercentEncoding ?? uri
            guard let index = resources.firstIndex(where: { $0.href == path }) else { continue }
            if let obfuscation = FontObfuscation(algorithm: algorithm, uniqueIdentifier: uniqueIdentifier) {
                resources[index].obfuscation = obfuscation
            } else {
                warnings.append("\(path) is encrypted (\(algorithm)); reading systems without its key cannot open it")
            }
        }
    }

    private mutating func checkMimetype() {
        guard let data = try? archive.read("mimetype", limit: 1024) else {
            warnings.append("the mimetype file is missing")
            return
        }
        let text = String(decoding: data, as: UTF8.self)
        if text != MediaType.epub {
            warnings.append(
                text.trimmingCharacters(in: .whitespacesAndNewlines) == MediaType.epub
                    ? "the mimetype file has trailing white space" : "the mimetype file says '\(text.prefix(60))'"
            )
        }
    }

    /// EPUB 3 `<meta refines="#id" property="…">` values by the id they refine.
    static func refinements(_ metadata: XMLNode) -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for meta in metadata.children("meta") {
            guard let refines = meta["refines"], let property = meta["property"] else { continue }
            result[String(refines.drop(while: { $0 == "#" })), default: [:]][property] = meta.allText
        }
        return result
    }

    private mutating func findCover(
        metadata: XMLNode,
        opf: XMLNode,
        manifest: [String: (href: String, type: String, properties: [String])],
        readingOrder: [PackageResource]
    ) -> (Data, String)? {
        var candidates: [(String, String)] = []
        if let item = manifest.values.first(where: { $0.properties.contains("cover-image") }) { candidates.append((item.href, item.type)) }
        if let id = metadata.children("meta").first(where: { $0["name"] == "cover" })?["content"] {
            if let item = manifest[id] {
                candidates.append((item.href, item.type))
            } else {
                warnings.append("<meta name=\"cover\"> names a missing item '\(id)'")
            }
        }
        for reference in opf.child("guide")?.children("reference") ?? [] where reference["type"] == "cover" {
            if let href = reference["href"], let page = Self.resolve(href, against: ""), let image = firstImage(inPage: page) {
                candidates.append(image)
            }
        }
        if let first = readingOrder.first, let image = firstImage(inPage: first.href) { candidates.append(image) }
        for (path, declared) in candidates where declared.hasPrefix("image/") {
            guard let data = try? archive.read(path, limit: 16 << 20), !data.isEmpty else {
                warnings.append("the declared cover \(path) is missing")
                continue
            }
            // Only raster covers, typed by their bytes: an SVG can carry script, and a declared type can lie.
            guard let type = RasterImage.type(of: data) else {
                warnings.append("the cover \(path) (\(declared)) is not a JPEG, PNG, GIF or WebP image; it is not used")
                continue
            }
            return (data, type)
        }
        return nil
    }

    private func firstImage(inPage path: String) -> (String, String)? {
        guard let data = try? archive.read(path, limit: 4 << 20) else { return nil }
        let html = String(decoding: data, as: UTF8.self)
        guard
            let range = html.range(
                of: #"(?:src|xlink:href|href)\s*=\s*["']([^"']+\.(?:jpe?g|png|gif|webp|svg))["']"#,
                options: [.regularExpression, .caseInsensitive]
            )
        else { return nil }
        let attribute = String(html[range])
        guard let quote = attribute.firstIndex(where: { $0 == "\"" || $0 == "'" }) else { return nil }
        let href = String(attribute[attribute.index(after: quote)...].dropLast())
        guard let resolved = Self.resolve(href, against: Self.directory(of: path)) else { return nil }
        let ext = resolved.split(separator: ".").last?.lowercased() ?? ""
        let type = ["jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp", "svg": "image/svg+xml"][
            ext
        ]
        return type.map { (resolved, $0) }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[...slash])
    }

    /// `href` (percent-decoded, fragment dropped) resolved against `base`; nil when it leaves the archive.
    static func resolve(_ href: String, against base: String) -> String? {
        let withoutFragment = href.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? href
        guard !withoutFragment.isEmpty, !withoutFragment.contains("://"), !withoutFragment.hasPrefix("/") else { return nil }
        let decoded = withoutFragment.removingPercentEncoding ?? withoutFragment
        var parts: [Substring] = []
        for part in (base + decoded).split(separator: "/") {
            if part == "." { continue }
            if part == ".." {
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            } else {
                parts.append(part)
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: "/")
    }
}
