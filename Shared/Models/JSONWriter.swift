import Foundation

/// A value that writes itself as JSON, byte for byte what `WireFormat.encode` writes for it (keys in sorted order,
/// absent optionals left out, ids lower-case, dates by `WireFormat.formatDate`). For answers on hot paths: Foundation's
/// `JSONEncoder` was a quarter of patron's time under `/me/books` (a dozen books a request).
public protocol JSONWritable {
    func write(to json: inout JSONWriter)
}

/// JSON written straight into bytes. The caller writes an object's keys in sorted order, as `WireFormat` does.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// A value was written at this level, so the next key or element needs a comma.
    private var needsComma = false
    /// A key was just written, so the next value follows it without a comma.
    private var afterKey = false

    public init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    /// `value` written alone.
    public static func bytes(of value: some JSONWritable, capacity: Int = 4096) -> [UInt8] {
        var json = JSONWriter(capacity: capacity)
        value.write(to: &json)
        return json.bytes
    }

    public mutating func beginObject() {
        startValue()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        startValue()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// An object's key; its value is written next. Keys are plain ASCII names and are not escaped.
    public mutating func key(_ name: StaticString) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        afterKey = true
    }

    /// An object's key that is not known until run time (escaped as a string is).
    public mutating func key(_ name: String) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = false
        string(name)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    public mutating func bool(_ value: Bool) {
        startValue()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    /// As Foundation's `JSONSerialization` writes a double: its shortest form, without a trailing ".0" (`4`, `4.25`,
    /// `1e-05`); `null` for what JSON cannot hold (infinities, NaN).
    public mutating func double(_ value: Double) {
        startValue()
        var text = value.isFinite ? value.description : "null"
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
        needsComma = true
    }

    /// Bytes the caller vouches are one JSON value.
    public mutating func rawValue(_ json: some Sequence<UInt8>) {
        startValue()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    public mutating func string(_ value: String) {
        startValue()
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { escape($0) }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    public mutating func int(_ value: Int) {
        startValue()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// Written straight from the id's bytes: it has nothing to escape.
    public mutating func uuid(_ value: UUID) {
        startValue()
        bytes.append(UInt8(ascii: "\""))
        value.appendLowercased(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Written straight from the date: it has nothing to escape.
    public mutating func date(_ value: Date) {
        startValue()
        bytes.append(UInt8(ascii: "\""))
        WireFormat.appendDate(value, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// An array of strings.
    public mutating func strings(_ values: [String]) {
        beginArray()
        for value in values { string(value) }
        endArray()
    }

    /// An array of values.
    public mutating func array(_ values: [some JSONWritable]) {
        beginArray()
        for value in values { value.write(to: &self) }
        endArray()
    }

    /// `values` as an array, with where each element's bytes lie (the commas between them left out): for a page
    /// whose elements are replaced later (`PageSplice`).
    public mutating func array(_ values: [some JSONWritable], elementRanges: inout [Range<Int>]) {
        beginArray()
        for value in values {
            if needsComma { bytes.append(UInt8(ascii: ",")) }
            needsComma = false
            let start = bytes.count
            value.write(to: &self)
            elementRanges.append(start..<bytes.count)
        }
        endArray()
    }

    // Optional members: nothing at all (not even the key) when absent, as `JSONEncoder` leaves them out.

    public mutating func field(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    public mutating func field(_ name: StaticString, _ value: Int?) {
        guard let value else { return }
        key(name)
        int(value)
    }

    public mutating func field(_ name: StaticString, _ value: Date?) {
        guard let value else { return }
        key(name)
        date(value)
    }

    public mutating func field(_ name: StaticString, _ values: [String]?) {
        guard let values else { return }
        key(name)
        strings(values)
    }

    public mutating func field(_ name: StaticString, _ value: Double?) {
        guard let value else { return }
        key(name)
        double(value)
    }

    public mutating func field(_ name: StaticString, _ value: (some JSONWritable)?) {
        guard let value else { return }
        key(name)
        value.write(to: &self)
    }

    public mutating func field(_ name: StaticString, _ values: [some JSONWritable]?) {
        guard let values else { return }
        key(name)
        array(values)
    }

    private mutating func startValue() {
        if afterKey {
            afterKey = false
        } else if needsComma {
            bytes.append(UInt8(ascii: ","))
        }
    }

    /// JSON's escapes as Foundation writes them: quote, backslash, and control characters (the short forms where JSON
    /// has them, else `\u00xx`); slashes and non-ASCII characters as they are.
    private mutating func escape(_ text: UnsafeBufferPointer<UInt8>) {
        var start = 0
        for index in 0..<text.count {
            let byte = text[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<index]))
            start = index + 1
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            default:
                bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                Hex.append(byte, to: &bytes)
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<text.count]))
    }
}
