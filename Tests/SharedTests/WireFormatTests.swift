import Foundation
import Testing

@testable import Shared

@Suite struct WireFormatTests {
    struct Sample: Encodable {
        var id: UUID
        var other: UUID?
        var absent: UUID?
        var list: [UUID]
        var note: String
        var when: Date
    }

    /// Ids are written lower-case where they are written; text is never rewritten, even a patron's note that is
    /// nothing but an upper-case UUID.
    @Test func idsAreLowerCaseAndTextIsLeftAsItIs() throws {
        let id = UUID(uuidString: "2DE8BB49-A4F1-435D-8ACC-3D6367BE7B5E")!
        let note = "ABCDEF01-2345-6789-ABCD-EF0123456789"
        let sample = Sample(id: id, other: id, absent: nil, list: [id, id], note: note, when: Date(timeIntervalSince1970: 0))
        let json = String(decoding: try WireFormat.encode(sample), as: UTF8.self)
        let lower = "2de8bb49-a4f1-435d-8acc-3d6367be7b5e"
        #expect(json.contains(#""id":"\#(lower)""#) && json.contains(#""other":"\#(lower)""#))
        #expect(json.contains(#""list":["\#(lower)","\#(lower)"]"#) && !json.contains("absent"))
        #expect(json.contains(#""note":"\#(note)""#))
        #expect(json.contains(#""when":"1970-01-01T00:00:00.000Z""#))
    }

    /// `formatDate` is computed by hand; Foundation's ISO 8601 format style, which it replaced, is the reference.
    @Test func datesAreWrittenAsFoundationWritesThem() {
        func reference(_ date: Date) -> String {
            date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true).timeSeparator(.colon))
                + "Z"
        }
        var generator = SystemRandomNumberGenerator()
        // Whole days (leap years, month ends, 2000-02-29), microseconds as PostgreSQL stores them, and the fraction's edges.
        var seconds: [Double] = [0, 0.0004, 0.9995, -0.0004, 951_782_400.5, 4_107_542_399.999, 1_795_526_981.837715, 1_795_526_981.0015]
        for _ in 0..<20_000 { seconds.append(Double(Int64.random(in: 0...4_102_444_800_000_000, using: &generator)) / 1_000_000) }
        for day in 0..<3_000 { seconds.append(Double(day) * 86_400 * 17 + 0.999) }
        for value in seconds {
            let date = Date(timeIntervalSince1970: value)
            #expect(WireFormat.formatDate(date) == reference(date), "\(value)")
        }
    }
}

@Suite struct HexTests {
    @Test func bytesAreTwoLowerCaseDigitsEach() {
        #expect(Hex.string([0x00, 0x0f, 0xa0, 0xff, 0x5c]) == "000fa0ff5c")
        #expect(Hex.string([UInt8]()) == "")
        let all = (0...255).map { UInt8($0) }
        #expect(Hex.string(all) == all.map { String(format: "%02x", $0) }.joined())
    }
}

@Suite struct UUIDLowercasedTests {
    @Test func idsAreWrittenAsFoundationWritesThemInLowerCase() {
        for _ in 0..<1_000 {
            let id = UUID()
            #expect(id.lowercased == id.uuidString.lowercased())
            // At the end of bytes already written (a feed's ids).
            var text = Array("id: ".utf8)
            id.appendLowercased(to: &text)
            #expect(String(decoding: text, as: UTF8.self) == "id: " + id.uuidString.lowercased())
        }
        #expect(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)).lowercased == "00000000-0000-0000-0000-000000000000")
        #expect(UUID(uuidString: "2DE8BB49-A4F1-435D-8ACC-3D6367BE7B5E")!.lowercased == "2de8bb49-a4f1-435d-8acc-3d6367be7b5e")
    }
}
