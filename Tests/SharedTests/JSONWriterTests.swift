import Foundation
import Testing

@testable import Shared

/// `JSONWriter` must write what `WireFormat.encode` (Foundation's `JSONEncoder`) writes for the same value, byte for byte.
@Suite struct JSONWriterTests {
    struct Sample: Encodable, JSONWritable {
        var id: UUID
        var names: [String]
        var note: String?
        var count: Int?
        var when: Date?
        var children: [Child]

        struct Child: Encodable, JSONWritable {
            var text: String
            func write(to json: inout JSONWriter) {
                json.beginObject()
                json.key("text")
                json.string(text)
                json.endObject()
            }
        }

        func write(to json: inout JSONWriter) {
            json.beginObject()
            json.key("children")
            json.array(children)
            json.field("count", count)
            json.key("id")
            json.uuid(id)
            json.key("names")
            json.strings(names)
            json.field("note", note)
            json.field("when", when)
            json.endObject()
        }
    }

    func written(_ value: some JSONWritable) -> String {
        var json = JSONWriter()
        value.write(to: &json)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    @Test func writesWhatTheEncoderWrites() throws {
        let samples = [
            Sample(id: UUID(), names: [], note: nil, count: nil, when: nil, children: []),
            Sample(
                id: UUID(),
                names: ["Zoë", "a/b", ""],
                note: "plain",
                count: -42,
                when: Date(timeIntervalSince1970: 1_795_526_981.837),
                children: [.init(text: "one"), .init(text: "two")]
            ),
            Sample(id: UUID(), names: ["x"], note: nil, count: 0, when: nil, children: [.init(text: "")]),
        ]
        for sample in samples {
            #expect(written(sample) == String(decoding: try WireFormat.encode(sample), as: UTF8.self))
        }
    }

    @Test func escapesEveryCharacterAsTheEncoderDoes() throws {
        var text = "quote \" backslash \\ slash / emoji 📚 line\u{2028}sep é"
        for code in 0..<0x20 { text.unicodeScalars.append(Unicode.Scalar(UInt8(code))) }
        let sample = Sample(id: UUID(), names: [text, "\u{7F}"], note: text, count: Int.max, when: nil, children: [.init(text: "\"")])
        #expect(written(sample) == String(decoding: try WireFormat.encode(sample), as: UTF8.self))
    }
}
