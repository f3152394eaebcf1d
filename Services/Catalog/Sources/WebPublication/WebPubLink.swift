import Foundation
import Shared

/// A link as Readium's Web Publication Manifest and OPDS 2.0 write one (`link.schema.json`): in feeds, publications,
/// manifests and tables of contents. Written with its keys in sorted order, absent members left out.
struct WebPubLink: Sendable, Equatable, JSONWritable {
    var href: String
    var type: String?
    var rel: String?
    var title: String?
    /// A URI template (`{?query}`); written only when true.
    var templated = false
    var properties: Properties?
    /// A track's length in seconds.
    var duration: Double?
    /// A table of contents' nested entries (nil: none).
    var children: [WebPubLink]?

    /// OPDS 2.0's link properties: a facet's count, or what an acquisition offers the patron.
    struct Properties: Sendable, Equatable, JSONWritable {
        var numberOfItems: Int?
        var availability: Availability?
        var copies: Copies?
        var holds: Holds?
        /// What a borrow leads to (`indirectAcquisition`), when it is not the file itself.
        var indirectAcquisitionType: String?

        func write(to json: inout JSONWriter) {
            json.beginObject()
            json.field("availability", availability)
            json.field("copies", copies)
            json.field("holds", holds)
            if let indirectAcquisitionType {
                json.key("indirectAcquisition")
                json.beginArray()
                json.beginObject()
                json.field("type", indirectAcquisitionType)
                json.endObject()
                json.endArray()
            }
            json.field("numberOfItems", numberOfItems)
            json.endObject()
        }
    }

    /// Whether the patron can have the book now (`available`, `unavailable`, `reserved`, `ready`), since and until when.
    struct Availability: Sendable, Equatable, JSONWritable {
        var state: String
        var since: Date?
        var until: Date?

        func write(to json: inout JSONWriter) {
            json.beginObject()
            json.field("since", since)
            json.field("state", state)
            json.field("until", until)
            json.endObject()
        }
    }

    struct Copies: Sendable, Equatable, JSONWritable {
        var total: Int
        var available: Int

        func write(to json: inout JSONWriter) {
            json.beginObject()
            json.field("available", available)
            json.field("total", total)
            json.endObject()
        }
    }

    struct Holds: Sendable, Equatable, JSONWritable {
        var total: Int
        /// The patron's place in the queue, when they hold the book.
        var position: Int?

        func write(to json: inout JSONWriter) {
            json.beginObject()
            json.field("position", position)
            json.field("total", total)
            json.endObject()
        }
    }

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("children", children)
        json.field("duration", duration)
        json.field("href", href)
        json.field("properties", properties)
        json.field("rel", rel)
        if templated {
            json.key("templated")
            json.bool(true)
        }
        json.field("title", title)
        json.field("type", type)
        json.endObject()
    }
}
