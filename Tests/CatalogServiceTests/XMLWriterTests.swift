import Foundation
import NIOCore
import Testing

@testable import CatalogService

/// The bytes the feeds are written into: escaping at every position of a run, and the numbers and ids written whole.
@Suite struct XMLWriterTests {
    func written(_ write: (inout XMLWriter) -> Void) -> String {
        var xml = XMLWriter(capacity: 8)
        write(&xml)
        return String(buffer: xml.buffer)
    }

    @Test func textIsEscapedAtTheStartInsideAndAtTheEndOfARun() {
        #expect(written { $0.text("&a<b>\"") } == "&amp;a&lt;b&gt;&quot;")
        #expect(written { $0.text("") }.isEmpty)
        #expect(written { $0.text("\u{01}\u{1F}x\r") } == "x\r")
        // U+F000 (EF 80 80) and U+FEFF (EF BB BF) share U+FFFE's lead byte and stay; U+FFFE and U+FFFF go, also last.
        #expect(written { $0.text("\u{F000}\u{FEFF}a\u{FFFF}") } == "\u{F000}\u{FEFF}a")
        #expect(written { $0.text("x\u{FFFE}") } == "x")
        #expect(written { $0.text("Ça coûte 5 € — 日本語 🙂") } == "Ça coûte 5 € — 日本語 🙂")
    }

    @Test func markupNumbersDatesAndIdsAreWrittenAsTheyAre() {
        let id = UUID(uuidString: "0A1B2C3D-4E5F-4061-8293-A4B5C6D7E8F9")!
        let date = Date(timeIntervalSince1970: 1_767_225_600.25)
        let text = written {
            $0.markup("<a n=\"")
            for number in [0, 7, 9, 10, 1234, -3] { $0.int(number) }
            $0.markup("\" at=\"")
            $0.date(date)
            $0.markup("\">")
            $0.uuid(id)
            $0.raw("&raw;")
        }
        #expect(text == "<a n=\"079101234-3\" at=\"2026-01-01T00:00:00.250Z\">0a1b2c3d-4e5f-4061-8293-a4b5c6d7e8f9&raw;")
    }

    /// The eight-bytes-at-a-time check agrees with the byte-by-byte one for every byte value at every position.
    @Test func theWordCheckFindsEveryByteThatNeedsALook() {
        let special: Set<UInt8> = [UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), 0xEF]
        for byte in UInt8.min...UInt8.max {
            for position in 0..<8 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                bytes[position] = byte
                let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                #expect(XMLWriter.anyNeedsEscaping(word) == (byte < 0x20 || special.contains(byte)), "\(byte) at \(position)")
            }
        }
        let plain = Array("Ça coûte 5 € — 日本語 ~|}{`_^]\\[@?=;:9/.-,+*)('%$#! ".utf8)
        for start in 0...(plain.count - 8) {
            #expect(!XMLWriter.anyNeedsEscaping(plain.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: start, as: UInt64.self) }))
        }
    }

    /// Long text with something to escape at every distance from the start, as a character-by-character escape writes it.
    @Test func longTextIsEscapedWhereverTheSpecialCharacterFalls() {
        func reference(_ text: String) -> String {
            var result = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "&": result += "&amp;"
                case "<": result += "&lt;"
                case ">": result += "&gt;"
                case "\"": result += "&quot;"
                case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
                case "\u{FFFE}", "\u{FFFF}": break
                default: if scalar.value >= 0x20 { result.unicodeScalars.append(scalar) }
                }
            }
            return result
        }
        let filler = "The quick brown fox jumps over the lazy dog, été "
        for special in ["&", "<", ">", "\"", "\u{01}", "\t", "\u{FFFE}", "\u{FFFF}", "\u{F000}", "€"] {
            for offset in 0..<20 {
                let text = String(filler.prefix(offset)) + special + filler + special + String(filler.prefix(offset))
                #expect(written { $0.text(text) } == reference(text), "\(special.unicodeScalars.map(\.value)) at \(offset)")
            }
        }
    }
}
