import Foundation

extension UUID {
    /// The lower-case form used on the wire and in URLs. Written from the bytes: `uuidString` formats each byte
    /// through libc's printf, and a feed page writes several ids an entry.
    public var lowercased: String {
        var text = [UInt8]()
        text.reserveCapacity(36)
        appendLowercased(to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// The lower-case form's 36 characters at the end of `text`.
    public func appendLowercased(to text: inout [UInt8]) {
        withUnsafeBytes(of: uuid) { bytes in
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
                Hex.append(byte, to: &text)
            }
        }
    }
}
