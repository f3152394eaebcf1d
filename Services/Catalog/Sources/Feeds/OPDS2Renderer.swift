import Foundation
import Shared

/// Renders a `Feed` as an OPDS 2.0 feed, or one `Entry` as an OPDS 2.0 publication.
enum OPDS2Renderer {
    /// The feed as an OPDS 2.0 document. Its search link is the templated OPDS 2.0 one, not Atom's OpenSearch
    /// description.
    static func feed(_ feed: Feed, publicURL: String) -> [String: Any] {
        var metadata: [String: Any] = ["title": feed.title, "modified": WireFormat.formatDate(feed.updated)]
        if let total = feed.totalResults { metadata["numberOfItems"] = total }
        if let perPage = feed.itemsPerPage { metadata["itemsPerPage"] = perPage }
        let links = feed.links.filter { $0.facetGroup == nil }.map { feedLink -> [String: Any] in
            var rendered = link(feedLink)
            if feedLink.rel == "search" {
                rendered["href"] = PublicRoute.search.url(publicURL) + "{?query}"
                rendered["type"] = MediaType.opds2
                rendered["templated"] = true
            }
            return rendered
        }
        var document: [String: Any] = ["metadata": metadata, "links": links]
        let facets = Dictionary(grouping: feed.links.filter { $0.facetGroup != nil }, by: { $0.facetGroup! })
        if !facets.isEmpty {
            document["facets"] = facets.keys.sorted().map { group in
                ["metadata": ["title": group], "links": facets[group]!.map(link)] as [String: Any]
            }
        }
        if !feed.navigation.isEmpty { document["navigation"] = feed.navigation.map(link) }
        if !feed.entries.isEmpty { document["publications"] = feed.entries.map(publication) }
        if !feed.groups.isEmpty {
            document["groups"] = feed.groups.map { group in
                [
                    "metadata": ["title": group.title],
                    "links": [["rel": "self", "href": group.href, "type": MediaType.opds2, "title": group.title]],
                    "publications": group.entries.map(publication),
                ] as [String: Any]
            }
        }
        // The schema wants one non-empty collection: an empty listing (no search results, an empty lane) offers
        // the way back to the catalog instead of an empty `publications`.
        if feed.navigation.isEmpty, feed.entries.isEmpty, feed.groups.isEmpty, let start = feed.links.first(where: { $0.rel == "start" }) {
            document["navigation"] = [
                link(Feed.Link(rel: "start", href: start.href, type: start.type, title: "Nothing here yet: back to the catalog"))
            ]
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

    static func link(_ link: Feed.Link) -> [String: Any] {
        var result: [String: Any] = [
            "rel": link.rel, "href": link.href,
            "type": link.type == MediaType.acquisition || link.type == MediaType.navigation ? MediaType.opds2 : link.type,
        ]
        if let title = link.title { result["title"] = title }
        if link.templated { result["templated"] = true }
        if link.activeFacet { result["rel"] = "self" }
        if let count = link.count { result["properties"] = ["numberOfItems": count] }
        return result
    }

    static let contributorKeys = ["edt": "editor", "trl": "translator", "ill": "illustrator", "nrt": "narrator", "clr": "colorist", "art": "artist"]

    static func publication(_ entry: Entry) -> [String: Any] {
        let book = entry.book
        var metadata: [String: Any] = [
            "@type": book.format.schemaType, "title": book.title, "identifier": entry.urn, "modified": WireFormat.formatDate(book.updatedAt),
        ]
        let authors = book.contributors.filter { $0.role == "aut" }.map { contributor -> [String: Any] in
            var author: [String: Any] = ["name": contributor.name]
            if let sortAs = contributor.sortAs { author["sortAs"] = sortAs }
            author["links"] = [["href": Lane.authorRoute(contributor.name).url(entry.publicURL), "type": MediaType.opds2]]
            return author
        }
        if !authors.isEmpty { metadata["author"] = authors }
        // The other roles OPDS 2.0 names (MARC relator codes from the EPUB); any other role is a plain contributor.
        for contributor in book.contributors where contributor.role != "aut" {
            let key = Self.contributorKeys[contributor.role] ?? "contributor"
            var person: [String: Any] = ["name": contributor.name]
            if let sortAs = contributor.sortAs { person["sortAs"] = sortAs }
            if key == "contributor" { person["role"] = contributor.role }
            metadata[key] = (metadata[key] as? [[String: Any]] ?? []) + [person]
        }
        if let subtitle = book.subtitle { metadata["subtitle"] = subtitle }
        if !book.languages.isEmpty { metadata["language"] = book.languages.count == 1 ? book.languages[0] : book.languages }
        if let publisher = book.publisher { metadata["publisher"] = publisher }
        if let published = book.published, isPublicationDate(published) { metadata["published"] = published }
        if let description = book.description { metadata["description"] = description }
        let subjects =
            book.subjects.map { ["name": $0] }
            + book.genres.map { ["name": Genres.name(of: $0) ?? $0, "code": $0, "scheme": "http://librarysimplified.org/terms/genres/Bookmobile/"] }
        if !subjects.isEmpty { metadata["subject"] = subjects }
        if let series = book.series {
            var collection: [String: Any] = ["name": series]
            if let position = book.seriesPosition { collection["position"] = position }
            collection["links"] = [["href": Lane.seriesRoute(series).url(entry.publicURL), "type": MediaType.opds2]]
            metadata["belongsTo"] = ["series": [collection]]
        }
        PublicationMetadata.addExtents(of: book, to: &metadata)
        if let accessibility = PublicationMetadata.accessibility(book) { metadata["accessibility"] = accessibility }
        if book.ratingCount > 0, let average = book.ratingAverage { metadata["rating"] = ["value": average, "count": book.ratingCount] }
        let availability = entry.availability
        var availabilityObject: [String: Any] = ["state": availability.status]
        if let since = availability.since { availabilityObject["since"] = WireFormat.formatDate(since) }
        if let until = availability.until { availabilityObject["until"] = WireFormat.formatDate(until) }
        var links: [[String: Any]] = [["rel": "self", "href": entry.entryURL, "type": MediaType.opds2Publication]]
        for acquisition in entry.acquisitionLinks {
            var properties: [String: Any] = ["availability": availabilityObject]
            if acquisition.type != book.format.fileType { properties["indirectAcquisition"] = [["type": entry.acquiredType]] }
            if !book.openAccess {
                properties["copies"] = ["total": book.copies, "available": book.copiesAvailable]
                var holds: [String: Any] = ["total": book.holds]
                if let position = entry.view?.holdPosition { holds["position"] = position }
                properties["holds"] = holds
            }
            let type = acquisition.type == book.format.fileType ? acquisition.type : MediaType.opds2Publication
            links.append(["rel": acquisition.rel, "href": acquisition.href, "type": type, "properties": properties])
        }
        links.append(["rel": "related", "href": entry.relatedLink.href, "type": MediaType.opds2, "title": entry.relatedLink.title ?? ""])
        if let manifest = entry.manifestLink { links.append(["rel": manifest.rel, "href": manifest.href, "type": manifest.type]) }
        if let annotations = entry.annotationService { links.append(["rel": annotations.rel, "href": annotations.href, "type": annotations.type]) }
        if let progression = entry.progressionLink { links.append(["rel": progression.rel, "href": progression.href, "type": progression.type]) }
        if let suspension = entry.holdSuspensionLink {
            links.append(["rel": suspension.rel, "href": suspension.href, "type": suspension.type, "title": suspension.title ?? ""])
        }
        var publication: [String: Any] = ["metadata": metadata, "links": links]
        if book.hasCover {
            publication["images"] = [
                ["href": PublicRoute.cover(book.id).url(entry.publicURL), "type": book.coverType ?? "image/jpeg", "rel": "cover"],
                [
                    "href": PublicRoute.cover(book.id).url(entry.publicURL) + PublicRoute.thumbnailQuery,
                    "type": book.thumbnailType ?? "image/jpeg",
                    "rel": "http://opds-spec.org/image/thumbnail",
                ],
            ]
        }
        return publication
    }
}
