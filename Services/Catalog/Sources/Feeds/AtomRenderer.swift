import Foundation
import NIOCore
import Shared

/// Renders a `Feed` as an OPDS 1.2 Atom feed, or one `Entry` as an OPDS 1.2 entry document.
enum AtomRenderer {
    static let namespaces = """
        xmlns="http://www.w3.org/2005/Atom" xmlns:opds="http://opds-spec.org/2010/catalog" \
        xmlns:dc="http://purl.org/dc/terms/" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" \
        xmlns:simplified="http://librarysimplified.org/terms/" xmlns:schema="http://schema.org/" \
        xmlns:opf="http://www.idpf.org/2007/opf"
        """

    /// The feed's bytes, written in one buffer (`XMLWriter`).
    static func feed(_ feed: Feed) -> ByteBuffer {
        var ranges: [Range<Int>] = []
        return self.feed(feed, entryRanges: &ranges)
    }

    /// The feed's bytes, with where each of its own entries' bytes lie (`PageSplice`).
    static func feed(_ feed: Feed, entryRanges: inout [Range<Int>]) -> ByteBuffer {
        let entryCount = feed.entries.count + feed.groups.reduce(0) { $0 + $1.entries.count }
        var xml = XMLWriter(capacity: 4096 + entryCount * 2560)
        prefix(feed, into: &xml)
        for entry in feed.entries {
            let start = xml.bytes.count
            self.entry(entry, into: &xml)
            entryRanges.append(start..<xml.bytes.count)
        }
        xml.markup("</feed>\n")
        return xml.buffer
    }

    /// Everything the feed writes before its own entries (`FeedSplice`).
    static func prefixBytes(_ feed: Feed) -> [UInt8] {
        var xml = XMLWriter(capacity: 4096)
        prefix(feed, into: &xml)
        return xml.bytes
    }

    /// The feed's header, links, navigation and groups: what comes before its own entries.
    private static func prefix(_ feed: Feed, into xml: inout XMLWriter) {
        xml.markup("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed ")
        xml.raw(namespaces)
        xml.markup(">\n")
        xml.element("<id>", feed.id, "</id>\n")
        xml.element("<title>", feed.title, "</title>\n")
        xml.markup("<updated>")
        let updated = feed.updated
        xml.date(updated)
        xml.markup("</updated>\n<author><name>Bookmobile</name></author>\n")
        if let total = feed.totalResults {
            xml.element("<opensearch:totalResults>", total, "</opensearch:totalResults>\n")
        }
        if let perPage = feed.itemsPerPage {
            xml.element("<opensearch:itemsPerPage>", perPage, "</opensearch:itemsPerPage>\n")
        }
        for link in feed.links { self.link(link, into: &xml) }
        for navigation in feed.navigation {
            xml.markup("<entry>\n")
            xml.element("<id>", navigation.href, "</id>\n")
            xml.element("<title>", navigation.title ?? "", "</title>\n")
            xml.element("<updated>", date: updated, "</updated>\n")
            xml.element("<content type=\"text\">", navigation.title ?? "", "</content>\n")
            link(Feed.Link(rel: navigation.rel, href: navigation.href, type: navigation.type, title: navigation.title), into: &xml)
            xml.markup("</entry>\n")
        }
        for group in feed.groups {
            let collection = Feed.Link(rel: "collection", href: group.href, type: MediaType.acquisition, title: group.title)
            for entry in group.entries { self.entry(entry, collection: collection, into: &xml) }
        }
    }

    /// One entry's bytes exactly as `feed` writes it among the feed's entries (`FeedSplice`).
    static func entryBytes(_ entry: Entry) -> [UInt8] {
        var xml = XMLWriter(capacity: 2560)
        self.entry(entry, into: &xml)
        return xml.bytes
    }

    static func entryDocument(_ entry: Entry) -> ByteBuffer {
        var xml = XMLWriter()
        xml.markup("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        self.entry(entry, standalone: true, into: &xml)
        return xml.buffer
    }

    static func entry(_ entry: Entry, collection: Feed.Link? = nil, standalone: Bool = false, into xml: inout XMLWriter) {
        let book = entry.book
        if standalone {
            xml.markup("<entry ")
            xml.raw(namespaces)
            xml.markup(">\n")
        } else {
            xml.markup("<entry>\n")
        }
        xml.markup("<id>urn:uuid:")
        xml.uuid(book.id)
        xml.markup("</id>\n")
        xml.element("<title>", book.title, "</title>\n")
        xml.element("<updated>", date: book.updatedAt, "</updated>\n")
        for contributor in book.contributors where contributor.role == "aut" {
            xml.markup("<author>")
            xml.element("<name>", contributor.name, "</name>")
            xml.element("<uri>", Lane.authorRoute(contributor.name).url(entry.publicURL), "</uri>")
            if let sortAs = contributor.sortAs {
                xml.element("<simplified:sort_name>", sortAs, "</simplified:sort_name>")
            }
            xml.markup("</author>\n")
        }
        // Editors, translators, illustrators, narrators: Atom contributors with their MARC relator code, as Palace's feeds carry them.
        for contributor in book.contributors where contributor.role != "aut" {
            xml.element("<contributor opf:role=\"", contributor.role, "\">")
            xml.element("<name>", contributor.name, "</name></contributor>\n")
        }
        if let summary = book.description {
            xml.element("<summary type=\"text\">", summary, "</summary>\n")
        }
        for language in book.languages {
            xml.element("<dc:language>", language, "</dc:language>\n")
        }
        if let publisher = book.publisher {
            xml.element("<dc:publisher>", publisher, "</dc:publisher>\n")
        }
        if let published = book.published {
            xml.element("<dc:issued>", published, "</dc:issued>\n")
        }
        if let isbn = book.isbn {
            xml.markup("<dc:identifier>urn:isbn:")
            xml.raw(isbn)
            xml.markup("</dc:identifier>\n")
        }
        if let series = book.series {
            xml.element("<schema:Series schema:name=\"", series, "\"")
            if let position = book.seriesPosition {
                xml.markup(" schema:position=\"")
                xml.raw("\(position)")
                xml.markup("\"")
            }
            xml.markup("/>\n")
        }
        for subject in book.subjects {
            xml.element("<category scheme=\"http://purl.org/dc/terms/subject\" term=\"", subject, "\"")
            xml.element(" label=\"", subject, "\"/>\n")
        }
        for genre in book.genres {
            xml.markup("<category scheme=\"http://librarysimplified.org/terms/genres/Bookmobile/\" term=\"")
            xml.raw(genre)
            xml.element("\" label=\"", Genres.name(of: genre) ?? genre, "\"/>\n")
        }
        if let accessibility = book.accessibility?.readableSummary {
            xml.element("<schema:accessibilitySummary>", accessibility, "</schema:accessibilitySummary>\n")
        }
        if let pages = book.pageCount {
            xml.element("<schema:numberOfPages>", pages, "</schema:numberOfPages>\n")
        }
        if book.ratingCount > 0, let average = book.ratingAverage {
            xml.markup("<schema:Rating schema:ratingValue=\"")
            xml.raw(twoDecimals(average))
            xml.element("\" schema:ratingCount=\"", book.ratingCount, "\"/>\n")
        }
        link(Feed.Link(rel: "alternate", href: entry.entryURL, type: MediaType.entry), into: &xml)
        link(entry.relatedLink, into: &xml)
        if let series = book.series {
            link(
                Feed.Link(
                    rel: "related",
                    href: Lane.seriesRoute(series).url(entry.publicURL),
                    type: MediaType.acquisition,
                    title: "Series: \(series)"
                ),
                into: &xml
            )
        }
        if book.hasCover {
            let cover = PublicRoute.cover(book.id).url(entry.publicURL)
            link(Feed.Link(rel: "http://opds-spec.org/image", href: cover, type: book.coverType ?? "image/jpeg"), into: &xml)
            link(
                Feed.Link(
                    rel: "http://opds-spec.org/image/thumbnail",
                    href: cover + PublicRoute.thumbnailQuery,
                    type: book.thumbnailType ?? "image/jpeg"
                ),
                into: &xml
            )
        }
        if let collection { link(collection, into: &xml) }
        let availability = entry.availability
        for acquisition in entry.acquisitionLinks {
            xml.markup("<link rel=\"")
            xml.raw(acquisition.rel)
            xml.element("\" href=\"", acquisition.href, "\"")
            xml.markup(" type=\"")
            xml.raw(acquisition.type)
            xml.markup("\">")
            if acquisition.type != book.format.fileType {
                xml.markup("<opds:indirectAcquisition type=\"")
                xml.raw(entry.acquiredType)
                xml.markup("\"/>")
            }
            xml.markup("<simplified:availability status=\"")
            xml.raw(availability.status)
            xml.markup("\"")
            if let since = availability.since {
                xml.element(" since=\"", date: since, "\"")
            }
            if let until = availability.until {
                xml.element(" until=\"", date: until, "\"")
            }
            xml.markup("/>")
            if !book.openAccess {
                xml.element("<simplified:holds total=\"", book.holds, "\"")
                if let position = entry.view?.holdPosition {
                    xml.element(" position=\"", position, "\"")
                }
                xml.element("/><simplified:copies total=\"", book.copies, "\" available=\"")
                xml.int(book.copiesAvailable)
                xml.markup("\"/>")
            }
            xml.markup("</link>\n")
        }
        // In OPDS 1.2 the manifest is an alternate representation: a 1.2 app offers every acquisition link as a
        // download, and this one is not a file it can open.
        if let manifest = entry.manifestLink { link(Feed.Link(rel: "alternate", href: manifest.href, type: manifest.type), into: &xml) }
        if let annotations = entry.annotationService { link(annotations, into: &xml) }
        if let progression = entry.progressionLink { link(progression, into: &xml) }
        if let suspension = entry.holdSuspensionLink { link(suspension, into: &xml) }
        xml.markup("</entry>\n")
    }

    static func link(_ link: Feed.Link, into xml: inout XMLWriter) {
        xml.element("<link rel=\"", link.rel, "\" href=\"")
        xml.text(link.href)
        xml.element("\" type=\"", link.type, "\"")
        if let title = link.title {
            xml.element(" title=\"", title, "\"")
        }
        if let group = link.facetGroup {
            xml.element(" opds:facetGroup=\"", group, "\"")
        }
        if link.activeFacet { xml.markup(" opds:activeFacet=\"true\"") }
        if let count = link.count {
            xml.element(" thr:count=\"", count, "\" xmlns:thr=\"http://purl.org/syndication/thread/1.0\"")
        }
        xml.markup("/>\n")
    }

    /// `value` (not negative) with two decimals, as `%.2f` writes it; `String(format:)` went through Foundation's
    /// formatting for every rated entry.
    static func twoDecimals(_ value: Double) -> String {
        // printf rounds the double's exact value (ties to even); `value * 100` alone rounds first (0.025 is a little
        // above 0.025 as a double, and 0.025 * 100 is exactly 2.5). A fused multiply-add gives the exact sign of
        // `value * 100 - x`, so the floor and the half-way comparison are made on the exact product.
        var floor = (value * 100).rounded(.down)
        if (-floor).addingProduct(value, 100) < 0 { floor -= 1 } else if (-(floor + 1)).addingProduct(value, 100) >= 0 { floor += 1 }
        let aboveHalf = (-(floor + 0.5)).addingProduct(value, 100)
        let hundredths = Int(floor) + (aboveHalf > 0 || (aboveHalf == 0 && Int(floor) % 2 == 1) ? 1 : 0)
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// XML text as `XMLWriter.text` writes it: `& < > "` escaped, control characters that XML 1.0 forbids dropped.
    static func escape(_ text: String) -> String {
        var xml = XMLWriter(capacity: text.utf8.count + 16)
        xml.text(text)
        return String(decoding: xml.bytes, as: UTF8.self)
    }
}
