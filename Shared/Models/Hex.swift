/// Bytes as lower-case hexadecimal (hashes in ETags and blob names, ids). `String(format: "%02x")` a byte went
/// through Foundation's formatting: sixteen calls for each feed page's ETag.
public enum Hex {
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        var text = [UInt8]()
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes { append(byte, to: &text) }
        return String(decoding: text, as: UTF8.self)
    }

    /// `byte`'s two digits at the end of `text`.
    public static func append(_ byte: UInt8, to text: inout [UInt8]) {
        text.append(digit(byte >> 4))
        text.append(digit(byte & 0x0F))
    }

    /// The digit of `value` (below 16).
    static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
