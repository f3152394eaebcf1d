import Foundation

extension UUID {
    /// The lower-case form used on the wire and in URLs. Written from the bytes: `uuidString` formats each byte
    /// through libc's printf, and a feed page writes several ids an entry.
    public var lowercased: String {
        String(unsafeUninitializedCapacity: 36) { text in
            writeLowercased(into: UnsafeMutableBufferPointer(rebasing: text[0..<36]))
            return 36
        }
    }

    /// The lower-case form's 36 characters at the end of `text`.
    public func appendLowercased(to text: inout [UInt8]) {
        let start = text.count
        text.append(contentsOf: repeatElement(0, count: 36))
        text.withUnsafeMutableBufferPointer { writeLowercased(into: UnsafeMutableBufferPointer(rebasing: $0[start..<start + 36])) }
    }

    /// The lower-case form's 36 characters into `text` (36 bytes), each written once: appending them one by one checked the array's
    /// capacity and uniqueness at every byte, 6 % of a feed's rendering.
    public func writeLowercased(into text: UnsafeMutableBufferPointer<UInt8>) {
        withUnsafeBytes(of: uuid) { bytes in
            var position = 0
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    text[position] = UInt8(ascii: "-")
                    position += 1
                }
                text[position] = Hex.digit(byte >> 4)
                text[position + 1] = Hex.digit(byte & 0x0F)
                position += 2
            }
        }
    }
}
