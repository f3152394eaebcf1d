import Foundation
import NIOCore
import Shared

/// XML written straight into bytes: literal markup as it is, text and attribute values escaped on the way in.
/// Building a feed from interpolated strings allocated a string per piece and copied each into the next (a fifth of
/// catalog's time under cold searches, docs/PERFORMANCE.md).
struct XMLWriter {
    /// What was written. An array, copied into a buffer once at the end (`buffer`): each small write into a
    /// `ByteBuffer` checked exclusive access to its storage at run time, a tenth of a feed's rendering.
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    /// The response body: `bytes` copied into a buffer (read it once, when the document is written).
    var buffer: ByteBuffer { ByteBuffer(bytes: bytes) }

    /// Markup, written as it is.
    mutating func markup(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `open`, the value escaped, then `close`: an element's text or an attribute's value between its markup.
    mutating func element(_ open: StaticString, _ value: String, _ close: StaticString) {
        markup(open)
        text(value)
        markup(close)
    }

    /// `open`, the number, then `close`.
    mutating func element(_ open: StaticString, _ value: Int, _ close: StaticString) {
        markup(open)
        int(value)
        markup(close)
    }

    /// `open`, the date, then `close`.
    mutating func element(_ open: StaticString, date value: Date, _ close: StaticString) {
        markup(open)
        date(value)
        markup(close)
    }

    /// A value the caller knows needs no escaping (ids, relations and media types of our own, numbers).
    mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Its decimal digits, without making a string of them first.
    mutating func int(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var divisor: UInt = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude / divisor))
            magnitude %= divisor
            divisor /= 10
        } while divisor > 0
    }

    mutating func date(_ value: Date) {
        WireFormat.appendDate(value, to: &bytes)
    }

    mutating func uuid(_ value: UUID) {
        value.appendLowercased(to: &bytes)
    }

    /// XML text or an attribute value: `& < > "` escaped, control characters that XML 1.0 forbids dropped, as are
    /// U+FFFE and U+FFFF. Runs without anything to escape are copied whole.
    mutating func text(_ value: String) {
        var value = value
        value.withUTF8 { escape($0) }
    }

    private mutating func escape(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var index = 0
        let count = utf8.count
        while index < count {
            // Eight bytes at a time while none of them needs a look (descriptions are long and mostly plain).
            if index &+ 8 <= count, let base = utf8.baseAddress,
                !Self.anyNeedsEscaping(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            {
                index &+= 8
                continue
            }
            let byte = utf8[index]
            guard Self.needsEscaping(byte) else {
                index += 1
                continue
            }
            if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
            var skip = 1
            switch byte {
            case UInt8(ascii: "&"): markup("&amp;")
            case UInt8(ascii: "<"): markup("&lt;")
            case UInt8(ascii: ">"): markup("&gt;")
            case UInt8(ascii: "\""): markup("&quot;")
            case UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): bytes.append(byte)
            case 0xEF:
                // U+FFFE and U+FFFF are EF BF BE and EF BF BF: not characters in XML.
                if index + 2 < count, utf8[index + 1] == 0xBF, utf8[index + 2] == 0xBE || utf8[index + 2] == 0xBF {
                    skip = 3
                } else {
                    bytes.append(byte)
                }
            default: break  // another control character: dropped
            }
            index += skip
            runStart = index
        }
        if runStart < count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count])) }
    }

    /// Whether any of the eight bytes in `word` is one `needsEscaping` names (exact, no false answers either way): a
    /// byte below 0x20, or one equal to `& < > "` or 0xEF, found with the usual zero-byte bit tricks.
    @inline(__always)
    static func anyNeedsEscaping(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highs != 0 }
        @inline(__always) func has(_ byte: UInt8) -> Bool { hasZeroByte(word ^ (ones &* UInt64(byte))) }
        let hasControl = (word &- ones &* 0x20) & ~word & highs != 0
        return hasControl || has(UInt8(ascii: "&")) || has(UInt8(ascii: "<")) || has(UInt8(ascii: ">")) || has(UInt8(ascii: "\""))
            || has(0xEF)
    }

    private static func needsEscaping(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\"") || byte < 0x20
            || byte == 0xEF  // the lead byte of U+FFFE and U+FFFF (checked in `escape`)
    }
}
