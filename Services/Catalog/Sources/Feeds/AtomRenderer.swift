import Foundation
import Shared

/// Renders a `Feed` as an OPDS 1.2 Atom feed, or one `Entry` as an OPDS 1.2 entry document.
enum AtomRenderer {
    static let namespaces = """
        xmlns="http://www.w3.org/2005/Atom" xmlns:opds="http://opds-spec.org/2010/catalog" \
        xmlns:dc="http://purl.org/dc/terms/" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" \
        xmlns:simplified="http://librarysimplified.org/terms/" xmlns:schema="http://schema.org/" \
        xmlns:opf="http://www.idpf.org/2007/opf"
        """

    static func feed(_ feed: Feed) -> String {
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed \(namespaces)>\n"
        xml += "<id>\(escape(feed.id))</id>\n<title>\(escape(feed.title))</title>\n<updated>\(date(feed.updated))</updated>\n"
        xml += "<author><name>Bookmobile</name></author>\n"
        if let total = feed.totalResults { xml += "<opensearch:totalResults>\(total)</opensearch:totalResults>\n" }
        if let perPage = feed.itemsPerPage { xml += "<opensearch:itemsPerPage>\(perPage)</opensearch:itemsPerPage>\n" }
        for link in feed.links { xml += self.link(link) }
        for navigation in feed.navigation {
            xml += "<entry>\n<id>\(escape(navigation.href))</id>\n<title>\(escape(navigation.title ?? ""))</title>\n"
            xml += "<updated>\(date(feed.updated))</updated>\n<content type=\"text\">\(escape(navigation.title ?? ""))</content>\n"
            xml += self.link(Feed.Link(rel: navigation.rel, href: navigation.href, type: navigation.type, title: navigation.title))
            xml += "</entry>\n"
        }
        for group in feed.groups {
            for entry in group.entries {
                xml += self.entry(
                    entry,
                    collection: Feed.Link(rel: "collection", href: group.href, type: MediaType.acquisition, title: group.title)
                )
            }
        }
        for entry in feed.entries { xml += self.entry(entry) }
        return xml + "</feed>\n"
    }

    static func entryDocument(_ entry: Entry) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + self.entry(entry, standalone: true)
    }

    static func entry(_ entry: Entry, collection: Feed.Link? = nil, standalone: Bool = false) -> String {
        let book = entry.book
        var xml = standalone ? "<entry \(namespaces)>\n" : "<entry>\n"
        xml += "<id>\(entry.urn)</id>\n<title>\(escape(book.title))</title>\n<updated>\(date(book.updatedAt))</updated>\n"
        for contributor in book.contributors where contributor.role == "aut" {
            xml += "<author><name>\(escape(contributor.name))</name><uri>\(escape(entry.publicURL + Lane.author(contributor.name).path))</uri>"
            if let sortAs = contributor.sortAs { xml += "<simplified:sort_name>\(escape(sortAs))</simplified:sort_name>" }
            xml += "</author>\n"
        }
        // Editors, translators, illustrators, narrators: Atom contributors with their MARC relator code, as Palace's feeds carry them.
        for contributor in book.contributors where contributor.role != "aut" {
            xml += "<contributor opf:role=\"\(escape(contributor.role))\"><name>\(escape(contributor.name))</name></contributor>\n"
        }
        if let summary = book.description { xml += "<summary type=\"text\">\(escape(summary))</summary>\n" }
        for language in book.languages { xml += "<dc:language>\(escape(language))</dc:language>\n" }
        if let publisher = book.publisher { xml += "<dc:publisher>\(escape(publisher))</dc:publisher>\n" }
        if let published = book.published { xml += "<dc:issued>\(escape(published))</dc:issued>\n" }
        if let isbn = book.isbn { xml += "<dc:identifier>urn:isbn:\(isbn)</dc:identifier>\n" }
        if let series = book.series {
            xml += "<schema:Series schema:name=\"\(escape(series))\"\(book.seriesPosition.map { " schema:position=\"\($0)\"" } ?? "")/>\n"
        }
        for subject in book.subjects {
            xml += "<category scheme=\"http://purl.org/dc/terms/subject\" term=\"\(escape(subject))\" label=\"\(escape(subject))\"/>\n"
        }
        for genre in book.genres {
            xml +=
                "<category scheme=\"http://librarysimplified.org/terms/genres/Bookmobile/\" term=\"\(genre)\" label=\"\(escape(Genres.name(of: genre) ?? genre))\"/>\n"
        }
        if let accessibility = book.accessibility?.readableSummary {
            xml += "<schema:accessibilitySummary>\(escape(accessibility))</schema:accessibilitySummary>\n"
        }
        if let pages = book.pageCount { xml += "<schema:numberOfPages>\(pages)</schema:numberOfPages>\n" }
        if book.ratingCount > 0, let average = book.ratingAverage {
            xml += "<schema:Rating schema:ratingValue=\"\(twoDecimals(average))\" schema:ratingCount=\"\(book.ratingCount)\"/>\n"
        }
        xml += link(Feed.Link(rel: "alternate", href: entry.entryURL, type: MediaType.entry))
        xml += link(entry.relatedLink)
        if let series = book.series {
            xml += link(
                Feed.Link(
                    rel: "related",
                    href: entry.publicURL + Lane.series(series).path,
                    type: MediaType.acquisition,
                    title: "Series: \(series)"
                )
            )
        }
        if book.hasCover {
            xml += link(
                Feed.Link(
                    rel: "http://opds-spec.org/image",
                    href: PublicRoute.cover(book.id).url(entry.publicURL),
                    type: book.coverType ?? "image/jpeg"
                )
            )
            xml += link(
                Feed.Link(
                    rel: "http://opds-spec.org/image/thumbnail",
                    href: PublicRoute.cover(book.id).url(entry.publicURL) + "?size=thumbnail",
                    type: book.thumbnailType ?? "image/jpeg"
                )
            )
        }
        if let collection { xml += link(collection) }
        let availability = entry.availability
        for acquisition in entry.acquisitionLinks {
            xml += "<link rel=\"\(acquisition.rel)\" href=\"\(escape(acquisition.href))\" type=\"\(acquisition.type)\">"
            if acquisition.type != MediaType.epub { xml += "<opds:indirectAcquisition type=\"application/epub+zip\"/>" }
            xml += "<simplified:availability status=\"\(availability.status)\""
            if let since = availability.since { xml += " since=\"\(date(since))\"" }
            if let until = availability.until { xml += " until=\"\(date(until))\"" }
            xml += "/>"
            if !book.openAccess {
                xml += "<simplified:holds total=\"\(book.holds)\"\(entry.view?.holdPosition.map { " position=\"\($0)\"" } ?? "")/>"
                xml += "<simplified:copies total=\"\(book.copies)\" available=\"\(book.copiesAvailable)\"/>"
            }
            xml += "</link>\n"
        }
        // In OPDS 1.2 the manifest is an alternate representation: a 1.2 app offers every acquisition link as a
        // download, and this one is not a file it can open.
        if let manifest = entry.manifestLink { xml += link(Feed.Link(rel: "alternate", href: manifest.href, type: manifest.type)) }
        if let annotations = entry.annotationService { xml += link(annotations) }
        if let suspension = entry.holdSuspensionLink { xml += link(suspension) }
        return xml + "</entry>\n"
    }

    static func link(_ link: Feed.Link) -> String {
        var xml = "<link rel=\"\(escape(link.rel))\" href=\"\(escape(link.href))\" type=\"\(escape(link.type))\""
        if let title = link.title { xml += " title=\"\(escape(title))\"" }
        if let group = link.facetGroup { xml += " opds:facetGroup=\"\(escape(group))\"" }
        if link.activeFacet { xml += " opds:activeFacet=\"true\"" }
        if let count = link.count { xml += " thr:count=\"\(count)\" xmlns:thr=\"http://purl.org/syndication/thread/1.0\"" }
        return xml + "/>\n"
    }

    static func date(_ date: Date) -> String { WireFormat.formatDate(date) }

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

    private static func needsEscaping(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\"") || byte < 0x20
            || byte == 0xEF  // the lead byte of U+FFFE and U+FFFF (checked below)
    }

    /// XML text: `& < > "` escaped, control characters that XML 1.0 forbids dropped. Works on UTF-8 bytes
    /// and returns the text untouched when nothing needs escaping (the common case: it dominates feed rendering).
    static func escape(_ text: String) -> String {
        let utf8 = text.utf8
        // Over the string's own bytes when it has them in one piece (a native string does): stepping through the
        // UTF-8 view byte by byte was a twentieth of the machine under cold lane pages.
        let needsWork = utf8.withContiguousStorageIfAvailable { $0.contains(where: needsEscaping) } ?? utf8.contains(where: needsEscaping)
        guard needsWork else { return text }
        var result: [UInt8] = []
        result.reserveCapacity(utf8.count + 16)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            switch byte {
            case UInt8(ascii: "&"): result += Array("&amp;".utf8)
            case UInt8(ascii: "<"): result += Array("&lt;".utf8)
            case UInt8(ascii: ">"): result += Array("&gt;".utf8)
            case UInt8(ascii: "\""): result += Array("&quot;".utf8)
            case UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): result.append(byte)
            case ..<0x20: break
            case 0xEF:
                // U+FFFE and U+FFFF are EF BF BE and EF BF BF: not characters in XML.
                let second = utf8.index(after: index)
                if second != utf8.endIndex, utf8[second] == 0xBF, utf8.index(after: second) != utf8.endIndex,
                    [0xBE, 0xBF].contains(utf8[utf8.index(after: second)])
                {
                    index = utf8.index(after: utf8.index(after: second))
                    continue
                }
                result.append(byte)
            default: result.append(byte)
            }
            index = utf8.index(after: index)
        }
        return String(decoding: result, as: UTF8.self)
    }
}
