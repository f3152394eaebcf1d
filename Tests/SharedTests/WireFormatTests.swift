import Foundation
import Testing

@testable import Shared

@Suite struct WireFormatTests {
    struct Sample: Encodable {
        var id: UUID
        var note: String
        var when: Date
    }

    @Test func idsAreLowerCaseAndOtherTextIsLeftAlone() throws {
        let id = UUID(uuidString: "2DE8BB49-A4F1-435D-8ACC-3D6367BE7B5E")!
        let note = "Ref ABCDEF01-2345-6789-ABCD-EF0123456789 inside text"
        let json = String(decoding: try WireFormat.encode(Sample(id: id, note: note, when: Date(timeIntervalSince1970: 0))), as: UTF8.self)
        #expect(json.contains(#""id":"2de8bb49-a4f1-435d-8acc-3d6367be7b5e""#))
        #expect(json.contains(note))
        #expect(json.contains(#""when":"1970-01-01T00:00:00.000Z""#))
    }

    @Test func nearMissesAreNotTouched() {
        for text in [
            #""2DE8BB49-A4F1-435D-8ACC-3D6367BE7B5""#, #""2DE8BB49XA4F1-435D-8ACC-3D6367BE7B5E""#, #""GGGGGGGG-A4F1-435D-8ACC-3D6367BE7B5E""#,
        ] {
            #expect(String(decoding: WireFormat.lowercasingUUIDs(Data(text.utf8)), as: UTF8.self) == text)
        }
    }
}
