import Foundation
import Shared

/// Renders a `Feed` as an OPDS 2.0 feed, or one `Entry` as an OPDS 2.0 publication, as typed documents (`OPDS2Feed`,
/// `OPDS2Publication`) that write themselves.
enum OPDS2Renderer {
    /// The feed as an OPDS 2.0 document. Its search link is the templated OPDS 2.0 one, not Atom's OpenSearch
    /// description.
    static func feed(_ feed: Feed, publicURL: String) -> OPDS2Feed {
        var document = head(feed, publicURL: publicURL)
        document.publications = feed.entries.map(publication)
        // The schema wants one non-empty collection: an empty listing (no search results, an empty lane) offers
        // the way back to the catalog instead of an empty `publications`.
        if feed.navigation.isEmpty, feed.entries.isEmpty, feed.groups.isEmpty, let start = feed.links.first(where: { $0.rel == "start" }) {
            document.navigation = [
                link(Feed.Link(rel: "start", href: start.href, type: start.type, title: "Nothing here yet: back to the catalog"))
            ]
        }
        return document
    }

    /// The document without its publications: for the bytes before them (`OPDS2Feed.writePrefix`, `FeedSplice`).
    static func head(_ feed: Feed, publicURL: String) -> OPDS2Feed {
        var document = OPDS2Feed(
            metadata: OPDS2Feed.Metadata(
                title: feed.title,
                modified: feed.updated,
                numberOfItems: feed.totalResults,
                itemsPerPage: feed.itemsPerPage
            ),
            links: feed.links.filter { $0.facetGroup == nil }.map { feedLink in
                var rendered = link(feedLink)
                if feedLink.rel == "search" {
                    rendered.href = PublicRoute.search.url(publicURL) + "{?query}"
                    rendered.type = MediaType.opds2
                    rendered.templated = true
                }
                return rendered
            }
        )
        let facets = Dictionary(grouping: feed.links.filter { $0.facetGroup != nil }, by: { $0.facetGroup! })
        document.facets = facets.keys.sorted().map { OPDS2Feed.Facet(title: $0, links: facets[$0]!.map(link)) }
        document.navigation = feed.navigation.map(link)
        document.groups = feed.groups.map { group in
            OPDS2Feed.Group(
                title: group.title,
                links: [WebPubLink(href: group.href, type: MediaType.opds2, rel: "self", title: group.title)],
                publications: group.entries.map(publication)
            )
        }
        return document
    }

    /// Whether `text` is a date the schema takes: a year, a month or a day (`2001`, `2001-09`, `2001-09-11`, as most
    /// books have it, checked byte by byte: a regular expression built for each publication was a tenth of catalog's
    /// time on an OPDS 2.0 page), or a full timestamp.
    static func isPublicationDate(_ text: String) -> Bool {
        let utf8 = text.utf8
        // Beyond ASCII (other digits) or with a line break at the end (which `$` lets through), the expression decides.
        if utf8.contains(where: { $0 >= 0x80 }) || utf8.last == 0x0A || utf8.last == 0x0D {
            return text.range(of: #"^\d{4}(-\d{2}(-\d{2})?)?$"#, options: .regularExpression) != nil || WireFormat.parseDate(text) != nil
        }
        let plain = [4, 7, 10].contains(utf8.count) && utf8.enumerated().allSatisfy { $0 == 4 || $0 == 7 ? $1 == 0x2D : (0x30...0x39).contains($1) }
        return plain || WireFormat.parseDate(text) != nil
    }

    static func link(_ link: Feed.Link) -> WebPubLink {
        WebPubLink(
            href: link.href,
            type: link.type == MediaType.acquisition || link.type == MediaType.navigation ? MediaType.opds2 : link.type,
            rel: link.activeFacet ? "self" : link.rel,
            title: link.title,
            templated: link.templated,
            properties: link.count.map { WebPubLink.Properties(numberOfItems: $0) }
        )
    }

    static func publication(_ entry: Entry) -> OPDS2Publication {
        let book = entry.book
        var metadata = WebPubMetadata(book.metadata, type: book.format.schemaType, identifier: entry.urn, modified: book.updatedAt)
        metadata.authors = book.metadata.authors.map { author in
            .person(
                name: author.name,
                sortAs: author.sortAs,
                links: [WebPubLink(href: Lane.authorRoute(author.name).url(entry.publicURL), type: MediaType.opds2)]
            )
        }
        for contributor in book.contributors where contributor.role != "aut" {
            let key = WebPubMetadata.roleKeys[contributor.role] ?? "contributor"
            let person = WebPubMetadata.Contributor.person(
                name: contributor.name,
                sortAs: contributor.sortAs,
                role: key == "contributor" ? contributor.role : nil
            )
            metadata.contributors[key, default: []].append(person)
        }
        if let published = book.published, isPublicationDate(published) { metadata.published = published }
        metadata.subjects =
            book.subjects.map { WebPubMetadata.Subject(name: $0) }
            + book.genres.map {
                WebPubMetadata.Subject(name: Genres.name(of: $0) ?? $0, code: $0, scheme: "http://librarysimplified.org/terms/genres/Bookmobile/")
            }
        if let series = book.series {
            metadata.series = [
                WebPubMetadata.Series(
                    name: series,
                    position: book.seriesPosition,
                    links: [WebPubLink(href: Lane.seriesRoute(series).url(entry.publicURL), type: MediaType.opds2)]
                )
            ]
        }
        metadata.addExtents(of: book)
        if book.ratingCount > 0, let average = book.ratingAverage { metadata.rating = WebPubMetadata.Rating(value: average, count: book.ratingCount) }

        let availability = entry.availability
        var links = [WebPubLink(href: entry.entryURL, type: MediaType.opds2Publication, rel: "self")]
        for acquisition in entry.acquisitionLinks {
            let isFile = acquisition.type == book.format.fileType
            var properties = WebPubLink.Properties(
                availability: WebPubLink.Availability(state: availability.status, since: availability.since, until: availability.until),
                indirectAcquisitionType: isFile ? nil : entry.acquiredType
            )
            if !book.openAccess {
                properties.copies = WebPubLink.Copies(total: book.copies, available: book.copiesAvailable)
                properties.holds = WebPubLink.Holds(total: book.holds, position: entry.view?.holdPosition)
            }
            links.append(
                WebPubLink(
                    href: acquisition.href,
                    type: isFile ? acquisition.type : MediaType.opds2Publication,
                    rel: acquisition.rel,
                    properties: properties
                )
            )
        }
        links.append(WebPubLink(href: entry.relatedLink.href, type: MediaType.opds2, rel: "related", title: entry.relatedLink.title ?? ""))
        for link in [entry.manifestLink, entry.annotationService, entry.progressionLink].compactMap({ $0 }) {
            links.append(WebPubLink(href: link.href, type: link.type, rel: link.rel))
        }
        if let suspension = entry.holdSuspensionLink {
            links.append(WebPubLink(href: suspension.href, type: suspension.type, rel: suspension.rel, title: suspension.title ?? ""))
        }
        var images: [WebPubLink] = []
        if book.hasCover {
            let cover = PublicRoute.cover(book.id).url(entry.publicURL)
            images = [
                WebPubLink(href: cover, type: book.coverType ?? "image/jpeg", rel: "cover"),
                WebPubLink(
                    href: cover + PublicRoute.thumbnailQuery,
                    type: book.thumbnailType ?? "image/jpeg",
                    rel: "http://opds-spec.org/image/thumbnail"
                ),
            ]
        }
        return OPDS2Publication(metadata: metadata, links: links, images: images)
    }
}
