import Foundation
import Shared

/// A Readium Web Publication Manifest (`publication.schema.json`): a book's, served at `/books/{id}/manifest.json`
/// with absolute hrefs, or the one an audiobook package carries inside it with relative ones. Written with its keys in
/// sorted order.
struct ReadiumManifest: Sendable, JSONWritable {
    static let context = "https://readium.org/webpub-manifest/context.jsonld"

    var metadata: WebPubMetadata
    var links: [WebPubLink]?
    var readingOrder: [WebPubLink]
    var resources: [WebPubLink]?
    var toc: [WebPubLink]
    var pageList: [WebPubLink]?
    var landmarks: [WebPubLink]?

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("@context", Self.context)
        json.field("landmarks", landmarks)
        json.field("links", links)
        json.field("metadata", metadata)
        json.field("pageList", pageList)
        json.field("readingOrder", readingOrder)
        json.field("resources", resources)
        json.field("toc", toc)
        json.endObject()
    }
}

extension ReadiumManifest {
    /// The catalog's book as a manifest: hrefs absolute, under `/books/{id}/publication/`.
    init(_ book: BookRecord, publicURL: String) {
        let content = PublicRoute.publication(book.id).url(publicURL)
        var metadata = WebPubMetadata(
            book.metadata,
            type: book.format.schemaType,
            identifier: "urn:uuid:\(book.id.lowercased)",
            modified: book.updatedAt
        )
        metadata.authors = book.authorNames.map(WebPubMetadata.Contributor.name)
        metadata.contributors["narrator"] = book.contributors.filter { $0.role == "nrt" }.map { .name($0.name) }
        if let direction = book.pageProgression, direction == "rtl" || direction == "ltr" { metadata.readingProgression = direction }
        if book.fixedLayout, book.format == .epub { metadata.layout = "fixed" }
        metadata.conformsTo = book.format.manifestProfile
        metadata.addExtents(of: book.entry)

        func link(_ resource: PackageResource) -> WebPubLink {
            WebPubLink(
                href: content + Self.encode(resource.href),
                type: resource.type,
                rel: resource.properties.contains("cover-image") ? "cover" : nil,
                title: resource.title,
                duration: resource.duration
            )
        }
        // Entries that point nowhere or only inside the current page are left out; a nested list stays (empty) when
        // all of its entries are.
        func links(_ entries: [TOCEntry]) -> [WebPubLink] {
            entries.filter { !$0.href.isEmpty && !$0.href.hasPrefix("#") }.map { entry in
                WebPubLink(
                    href: content + Self.encode(entry.href),
                    title: entry.title,
                    children: entry.children.isEmpty ? nil : links(entry.children)
                )
            }
        }
        let navigation = book.navigation ?? .empty
        let spine = Set(navigation.readingOrder.map(\.href))
        self.init(
            metadata: metadata,
            links: [
                WebPubLink(href: PublicRoute.manifest(book.id).url(publicURL), type: book.format.manifestType, rel: "self"),
                WebPubLink(href: PublicRoute.fulfill(book.id).url(publicURL), type: book.format.fileType, rel: "alternate"),
                // Those who may open the manifest (the borrower, anyone for an open-access book) keep their place there.
                WebPubLink(href: PublicRoute.progression(book.id).url(publicURL), type: Entry.progressionType, rel: Entry.progressionRel),
            ],
            readingOrder: navigation.readingOrder.map(link),
            resources: navigation.resources.filter { !spine.contains($0.href) }.map(link),
            toc: links(navigation.toc),
            pageList: navigation.pageList.isEmpty ? nil : links(navigation.pageList),
            landmarks: navigation.landmarks.isEmpty ? nil : links(navigation.landmarks)
        )
    }

    /// The manifest written into a stored audiobook package: relative hrefs, so that an app can play the file offline.
    init(package book: ParsedBook) {
        var metadata = WebPubMetadata(type: BookFormat.audiobook.schemaType, title: book.title)
        metadata.conformsTo = BookFormat.audiobook.manifestProfile ?? ""
        metadata.authors = book.metadata.authors.map { .name($0.name) }
        metadata.contributors["narrator"] = book.contributors.filter { $0.role == "nrt" }.map { .name($0.name) }
        metadata.duration = book.duration
        if !book.languages.isEmpty { metadata.language = .many(book.languages) }
        func toc(_ entries: [TOCEntry]) -> [WebPubLink] {
            entries.map { WebPubLink(href: $0.href, title: $0.title, children: $0.children.isEmpty ? nil : toc($0.children)) }
        }
        self.init(
            metadata: metadata,
            readingOrder: book.readingOrder.map { WebPubLink(href: $0.href, type: $0.type, title: $0.title, duration: $0.duration) },
            toc: toc(book.toc)
        )
    }

    /// A path inside the archive as a URL path (each segment percent-encoded, `#fragment` kept).
    static func encode(_ href: String) -> String {
        let parts = href.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts[0].split(separator: "/", omittingEmptySubsequences: false).map { PercentEncoding.encode($0, keeping: .pathSegment) }.joined(
            separator: "/"
        )
        return parts.count > 1 ? path + "#" + parts[1] : path
    }
}
