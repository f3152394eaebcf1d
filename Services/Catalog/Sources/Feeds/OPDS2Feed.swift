import Foundation
import Shared

/// An OPDS 2.0 feed (`feed.schema.json`), written with its keys in sorted order and its empty collections left out.
struct OPDS2Feed: Sendable, JSONWritable {
    struct Metadata: Sendable, JSONWritable {
        var title: String
        var modified: Date
        var numberOfItems: Int?
        var itemsPerPage: Int?

        func write(to json: inout JSONWriter) {
            json.beginObject()
            json.field("itemsPerPage", itemsPerPage)
            json.field("modified", modified)
            json.field("numberOfItems", numberOfItems)
            json.field("title", title)
            json.endObject()
        }
    }

    /// A group of facets (`Sort by`, `Format`), titled by the group.
    struct Facet: Sendable, JSONWritable {
        var title: String
        var links: [WebPubLink]

        func write(to json: inout JSONWriter) {
            json.beginObject()
            json.field("links", links)
            OPDS2Feed.writeTitle(title, to: &json)
            json.endObject()
        }
    }

    /// A lane's first books on a grouped page, with the link to the whole lane.
    struct Group: Sendable, JSONWritable {
        var title: String
        var links: [WebPubLink]
        var publications: [OPDS2Publication]

        func write(to json: inout JSONWriter) {
            json.beginObject()
            json.field("links", links)
            OPDS2Feed.writeTitle(title, to: &json)
            json.field("publications", publications)
            json.endObject()
        }
    }

    var metadata: Metadata
    var links: [WebPubLink]
    var facets: [Facet] = []
    var navigation: [WebPubLink] = []
    var publications: [OPDS2Publication] = []
    var groups: [Group] = []

    func write(to json: inout JSONWriter) {
        var ranges: [Range<Int>] = []
        write(to: &json, publicationRanges: &ranges)
    }

    /// The feed, with where each of its publications' bytes lie (`PageSplice`).
    func write(to json: inout JSONWriter, publicationRanges: inout [Range<Int>]) {
        writeHead(to: &json)
        if !publications.isEmpty {
            json.key("publications")
            json.array(publications, elementRanges: &publicationRanges)
        }
        json.endObject()
    }

    /// What the feed writes before its first publication, through `"publications":[` (`FeedSplice`): its
    /// publications are the last member, so the rest of the head does not depend on them.
    func writePrefix(to json: inout JSONWriter) {
        writeHead(to: &json)
        json.key("publications")
        json.beginArray()
    }

    /// The object's opening and every member before `publications`.
    private func writeHead(to json: inout JSONWriter) {
        json.beginObject()
        if !facets.isEmpty { json.field("facets", facets) }
        if !groups.isEmpty { json.field("groups", groups) }
        json.field("links", links)
        json.field("metadata", metadata)
        if !navigation.isEmpty { json.field("navigation", navigation) }
    }

    /// `"metadata": {"title": ...}`, a facet's or group's.
    fileprivate static func writeTitle(_ title: String, to json: inout JSONWriter) {
        json.key("metadata")
        json.beginObject()
        json.field("title", title)
        json.endObject()
    }
}

/// An OPDS 2.0 publication (`publication.schema.json`): its metadata, links and cover images.
struct OPDS2Publication: Sendable, JSONWritable {
    var metadata: WebPubMetadata
    var links: [WebPubLink]
    var images: [WebPubLink] = []

    func write(to json: inout JSONWriter) {
        json.beginObject()
        if !images.isEmpty { json.field("images", images) }
        json.field("links", links)
        json.field("metadata", metadata)
        json.endObject()
    }
}
