import Foundation

/// An OPDS 2.0 feed or publication, or a Readium manifest, as another server or an uploaded package wrote it: the one
/// reader of those documents (an OPDS import's pages, `OPDSFeedPage`; an audiobook package's `manifest.json`,
/// `PackageManifest`). Read leniently: a member of an unexpected type counts as missing, as the readers it replaced
/// took them.
struct WebPubDocument: Decodable, Sendable {
    var metadata = Metadata()
    var links: [Link] = []
    var readingOrder: [Link] = []
    var toc: [Link] = []
    var navigation: [Link] = []
    var publications: [WebPubDocument] = []
    /// A feed's groups: each a document of its own (metadata, links, publications, navigation).
    var groups: [WebPubDocument] = []

    struct Metadata: Decodable, Sendable {
        /// The title, or the first of a localized title's values.
        var title: String?
        var identifier: String?
        var authors: [String] = []
        var narrators: [String] = []
        var languages: [String]?
        var publishers: [String] = []
        var description: String?

        init() {}

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: Key.self)
            title = fields.lenient(String.self, .title) ?? fields.lenient([String: String].self, .title)?.values.first
            identifier = fields.lenient(String.self, .identifier)
            authors = fields.names(.author)
            narrators = fields.names(.narrator)
            languages = fields.lenient(String.self, .language).map { [$0] } ?? fields.lenient([String].self, .language)
            publishers = fields.names(.publisher)
            description = fields.lenient(String.self, .description)
        }
    }

    struct Link: Decodable, Sendable {
        var href: String?
        var type: String?
        /// `rel`, one or several.
        var rels: [String] = []
        var title: String?
        var children: [Link] = []

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: Key.self)
            href = fields.lenient(String.self, .href)
            type = fields.lenient(String.self, .type)
            rels = fields.lenient(String.self, .rel).map { [$0] } ?? fields.lenient([String].self, .rel) ?? []
            title = fields.lenient(String.self, .title)
            children = fields.list(.children)
        }
    }

    init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: Key.self)
        metadata = fields.lenient(Metadata.self, .metadata) ?? Metadata()
        links = fields.list(.links)
        readingOrder = fields.list(.readingOrder)
        toc = fields.list(.toc)
        navigation = fields.list(.navigation)
        publications = fields.list(.publications)
        groups = fields.list(.groups)
    }

    /// `data` as a JSON object; nil when it is not one (not JSON, or an array or a string at the top: the keyed
    /// container `init(from:)` asks for is then refused).
    static func read(_ data: Data) -> WebPubDocument? { try? JSONDecoder().decode(WebPubDocument.self, from: data) }

    fileprivate struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }

        static let metadata = Key(stringValue: "metadata"), links = Key(stringValue: "links"), readingOrder = Key(stringValue: "readingOrder")
        static let toc = Key(stringValue: "toc"), navigation = Key(stringValue: "navigation"), publications = Key(stringValue: "publications")
        static let groups = Key(stringValue: "groups"), title = Key(stringValue: "title"), identifier = Key(stringValue: "identifier")
        static let author = Key(stringValue: "author"), narrator = Key(stringValue: "narrator"), language = Key(stringValue: "language")
        static let publisher = Key(stringValue: "publisher"), description = Key(stringValue: "description"), href = Key(stringValue: "href")
        static let type = Key(stringValue: "type"), rel = Key(stringValue: "rel"), children = Key(stringValue: "children")
    }
}

extension KeyedDecodingContainer where Key == WebPubDocument.Key {
    /// The member as `type`, nil when it is missing or of another type.
    fileprivate func lenient<T: Decodable>(_ type: T.Type, _ key: Key) -> T? { (try? decodeIfPresent(T.self, forKey: key)) ?? nil }

    /// A list of objects, those that cannot be read left out.
    fileprivate func list<T: Decodable>(_ key: Key) -> [T] {
        lenient([Lenient<T>].self, key)?.compactMap(\.value) ?? []
    }

    /// A name, a contributor object, or a list of either, empty names left out.
    fileprivate func names(_ key: Key) -> [String] {
        let list = lenient([Lenient<Name>].self, key)?.compactMap(\.value) ?? lenient(Name.self, key).map { [$0] } ?? []
        return list.map(\.name).filter { !$0.isEmpty }
    }
}

/// A value that may fail to decode without failing the list it is in.
private struct Lenient<T: Decodable>: Decodable {
    var value: T?
    init(from decoder: any Decoder) throws { value = try? T(from: decoder) }
}

/// A contributor: a bare name or an object with a `name`.
private struct Name: Decodable {
    var name: String

    init(from decoder: any Decoder) throws {
        if let name = try? decoder.singleValueContainer().decode(String.self) {
            self.name = name
            return
        }
        struct Object: Decodable { var name: String }
        name = try Object(from: decoder).name
    }
}
