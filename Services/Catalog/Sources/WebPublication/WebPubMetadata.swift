import Foundation
import Shared

/// A publication's metadata as Readium's Web Publication Manifest and OPDS 2.0 write it (`metadata.schema.json`): an
/// OPDS 2.0 publication, a book's manifest and an audiobook package's own manifest each fill what they show. Written
/// with its keys in sorted order, absent members left out.
struct WebPubMetadata: Sendable, JSONWritable {
    var type: String?
    var title: String
    var subtitle: String?
    var identifier: String?
    var modified: Date?
    var published: String?
    var publisher: String?
    var description: String?
    var language: Language?
    var authors: [Contributor] = []
    /// Contributors in the other roles, by the key OPDS 2.0 gives each role (`roleKeys`, else `contributor`).
    var contributors: [String: [Contributor]] = [:]

    /// The keys of the roles OPDS 2.0 names, by MARC relator code (the EPUB's); `write` places each among the other
    /// keys in sorted order (`WebPublicationWritingTests` checks that none is left out).
    static let roleKeys = ["edt": "editor", "trl": "translator", "ill": "illustrator", "nrt": "narrator", "clr": "colorist", "art": "artist"]
    var subjects: [Subject] = []
    var series: [Series] = []
    var conformsTo: String?
    var readingProgression: String?
    /// `presentation.layout` (`fixed`).
    var layout: String?
    var numberOfPages: Int?
    /// An audiobook's length in seconds.
    var duration: Double?
    /// The reading-time estimate, in minutes at 250 words a minute, under our own key (`urn:x-bookmobile:readingMinutes`):
    /// Readium's `duration` is the length of audio in seconds, so an ebook's estimate does not belong there.
    var readingMinutes: Int?
    var accessibility: Accessibility?
    var rating: Rating?

    /// One language as a string, several as an array (as the schema allows either).
    enum Language: Sendable, Equatable, JSONWritable {
        case one(String)
        case many([String])

        func write(to json: inout JSONWriter) {
            switch self {
            case .one(let language): json.string(language)
            case .many(let languages): json.strings(languages)
            }
        }
    }

    /// A person: a bare name, or an object with the name's sort key, a role OPDS 2.0 has no key for, and links.
    enum Contributor: Sendable, Equatable, JSONWritable {
        case name(String)
        case person(name: String, sortAs: String?, role: String? = nil, links: [WebPubLink]? = nil)

        func write(to json: inout JSONWriter) {
            switch self {
            case .name(let name): json.string(name)
            case .person(let name, let sortAs, let role, let links):
                json.beginObject()
                json.field("links", links)
                json.field("name", name)
                json.field("role", role)
                json.field("sortAs", sortAs)
                json.endObject()
            }
        }
    }

    /// A subject, with the code and scheme of a genre.
    struct Subject: Sendable, Equatable, JSONWritable {
        var name: String
        var code: String?
        var scheme: String?

        func write(to json: inout JSONWriter) {
            json.beginObject()
            json.field("code", code)
            json.field("name", name)
            json.field("scheme", scheme)
            json.endObject()
        }
    }

    /// The series the book belongs to (`belongsTo.series`).
    struct Series: Sendable, Equatable, JSONWritable {
        var name: String
        var position: Double?
        var links: [WebPubLink]

        func write(to json: inout JSONWriter) {
            json.beginObject()
            json.field("links", links)
            json.field("name", name)
            json.field("position", position)
            json.endObject()
        }
    }

    struct Rating: Sendable, Equatable, JSONWritable {
        var value: Double
        var count: Int

        func write(to json: inout JSONWriter) {
            json.beginObject()
            json.field("count", count)
            json.field("value", value)
            json.endObject()
        }
    }

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("@type", type)
        json.field("accessibility", accessibility.flatMap { $0.isEmpty ? nil : $0 })
        writeRole("artist", to: &json)
        if !authors.isEmpty { json.field("author", authors) }
        if !series.isEmpty {
            json.key("belongsTo")
            json.beginObject()
            json.field("series", series)
            json.endObject()
        }
        writeRole("colorist", to: &json)
        json.field("conformsTo", conformsTo)
        writeRole("contributor", to: &json)
        json.field("description", description)
        json.field("duration", duration)
        writeRole("editor", to: &json)
        json.field("identifier", identifier)
        writeRole("illustrator", to: &json)
        json.field("language", language)
        json.field("modified", modified)
        writeRole("narrator", to: &json)
        json.field("numberOfPages", numberOfPages)
        if let layout {
            json.key("presentation")
            json.beginObject()
            json.field("layout", layout)
            json.endObject()
        }
        json.field("published", published)
        json.field("publisher", publisher)
        json.field("rating", rating)
        json.field("readingProgression", readingProgression)
        if !subjects.isEmpty { json.field("subject", subjects) }
        json.field("subtitle", subtitle)
        json.field("title", title)
        writeRole("translator", to: &json)
        json.field("urn:x-bookmobile:readingMinutes", readingMinutes)
        json.endObject()
    }

    private func writeRole(_ key: StaticString, to json: inout JSONWriter) {
        // Most books have authors only: no lookup then.
        guard !contributors.isEmpty, let people = contributors[key.description], !people.isEmpty else { return }
        json.field(key, people)
    }
}

/// The Readium accessibility object (`a11y.schema.json`), its empty lists left out.
extension Accessibility: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.beginObject()
        if !accessMode.isEmpty { json.field("accessMode", accessMode) }
        if !accessModeSufficient.isEmpty {
            json.key("accessModeSufficient")
            json.beginArray()
            for modes in accessModeSufficient { json.strings(modes) }
            json.endArray()
        }
        if let certification {
            json.key("certification")
            json.beginObject()
            json.field("certifiedBy", certification.certifiedBy)
            json.field("credential", certification.credential)
            json.field("report", certification.report)
            json.endObject()
        }
        if !conformsTo.isEmpty { json.field("conformsTo", conformsTo) }
        if !feature.isEmpty { json.field("feature", feature) }
        if !hazard.isEmpty { json.field("hazard", hazard) }
        json.field("summary", summary)
        json.endObject()
    }
}
