import Foundation
import Shared
import Testing

@testable import CatalogService

/// The stored documents' reader, against Foundation's decoder that it replaced.
@Suite struct StoredJSONTests {
    @Test func contributorsReadAsFoundationDecodedThem() throws {
        let documents = [
            #"[]"#,
            #"[{"name": "Jane Heron", "role": "aut", "sortAs": "Heron, Jane"}]"#,
            #"[{"name":"A \"quoted\" \\ name\/x","role":"ill"},{"name": "Émile Zola \u00e9\u4e2d\ud83d\ude80", "role": "trl", "sortAs": null}]"#,
            "[ {\n\t\"role\" : \"edt\" , \"name\" : \"tab\\tnew\\nline\\r\\b\\f\" } ]",
        ]
        for text in documents {
            let expected = try WireFormat.decoder().decode([Contributor].self, from: Data(text.utf8))
            #expect(try Contributor.stored(text) == expected, "\(text)")
        }
        let written = [Contributor(name: "Ada \"Q\" Marsh 🚀\u{1}", sortAs: "Marsh, Ada", role: "aut"), Contributor(name: "B", role: "aut")]
        #expect(try Contributor.stored(String(decoding: try WireFormat.encode(written), as: UTF8.self)) == written)
        for malformed in [
            #"[{"name": "x"}]"#, #"[{"name": "x", "role": "aut"}"#, #"{"name": "x", "role": "aut"}"#, #"["\ud800"]"#, "[\"a\u{1}\"]", "", "[1,]",
            #"["abc"#, #"["ab\"#,
        ] {
            #expect(throws: (any Error).self, "\(malformed)") { try Contributor.stored(malformed) }
        }
    }

    @Test func accessibilityReadsAsFoundationDecodedIt() throws {
        var full = Accessibility()
        full.conformsTo = ["http://www.idpf.org/epub/a11y/accessibility-20170105.html#wcag-aa"]
        full.certification = .init(certifiedBy: "Benetech", credential: nil, report: "https://example.org/report")
        full.summary = "Meets \"WCAG\" 2.0 AA.\nNo issues."
        full.accessMode = ["textual", "visual"]
        full.accessModeSufficient = [["textual"], ["auditory", "visual"]]
        full.feature = ["alternativeText", "tableOfContents"]
        full.hazard = ["none"]
        for value in [full, Accessibility()] {
            let text = String(decoding: try WireFormat.encode(value), as: UTF8.self)
            #expect(Accessibility.stored(text) == (try WireFormat.decoder().decode(Accessibility.self, from: Data(text.utf8))), "\(text)")
            #expect(Accessibility.stored(text) == value)
        }
        #expect(Accessibility.stored("[1, 2]") == nil && Accessibility.stored("{") == nil)
        let numbers = try StoredJSON(parsing: #"{"a": -1.5e2, "b": [true, false, null, 0]}"#)
        #expect(numbers == .object(["a": .number(-150), "b": .array([.bool(true), .bool(false), .null, .number(0)])]))
    }
}
