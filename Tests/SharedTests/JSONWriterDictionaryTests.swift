import Foundation
import Testing

@testable import Shared

/// OPDS 2.0 documents and Readium manifests are written by `JSONWriter.bytes`, byte for byte as `JSONSerialization` with
/// sorted keys and unescaped slashes wrote them (the same ETags across the change and across replicas).
@Suite struct JSONWriterDictionaryTests {
    static func foundation(_ object: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    @Test func aDocumentOfEveryKindOfValueIsWrittenAsJSONSerializationWritesIt() throws {
        let document: [String: Any] = [
            "metadata": [
                "@type": "http://schema.org/Book", "title": "Quotes \" and \\ and / and \n\t\u{1} and é 漢字 🙂", "numberOfItems": 1_000_000,
                "urn:x-bookmobile:readingMinutes": 42, "rating": ["value": 4.0, "count": 3], "position": 2.5, "negative": -7,
                "doubles": [0.1, 1e-5, 1e21, 3.3333333333333335, -0.0, 100.0, 12345678.9], "templated": true, "other": false,
                "language": ["en", "fr"], "belongsTo": ["series": [["name": "Dune", "position": 1.0]]],
            ],
            "links": [["rel": "self", "href": "https://example.org/opds/lanes/new?sort=title&order=asc", "type": "application/opds+json"]],
            "publications": [] as [Any], "empty": [:] as [String: Any],
            // Each collection type the writer tells apart by its exact type, and others it reaches by casts.
            "strings": ["b": "2", "a": "1"] as [String: String], "stringObjects": [["z": "26", "y": "25"]] as [[String: String]],
            "objects": [["k": 1, "j": "x"]] as [[String: Any]], "ints": ["y": 2, "x": 1] as [String: Int], "texts": ["b", "a"] as [String],
        ]
        #expect(JSONWriter.bytes(document) == (try Self.foundation(document)))
    }

    /// JSONSerialization's key order ignores case, reads a run of digits as its number, and puts lower case first
    /// between keys that differ only in case; every key the renderers write is in it.
    @Test func keysAreInJSONSerializationsOrder() throws {
        let keys = [
            "@context", "@type", "Zeta", "alpha", "a10", "a9", "ab", "aB", "Ab", "abc", "a", "_x", "x_", "a:b", "ab-c", "é", "e", "f",
            "numberOfItems", "numberOfPages", "itemsPerPage", "urn:x-bookmobile:readingMinutes", "modified", "belongsTo",
            "accessModeSufficient", "accessMode", "conformsTo", "readingOrder", "resources", "toc", "pageList", "landmarks",
            "indirectAcquisition", "availability", "holds", "copies", "images", "publications", "groups", "navigation", "facets",
        ]
        let object = Dictionary(uniqueKeysWithValues: keys.map { ($0, 1 as Any) })
        #expect(String(decoding: JSONWriter.bytes(object), as: UTF8.self) == String(decoding: try Self.foundation(object), as: UTF8.self))
    }
}
