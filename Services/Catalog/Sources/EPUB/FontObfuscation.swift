import Crypto
import Foundation

/// Font obfuscation as EPUB defines it (OCF §4.4, "IDPF") and as Adobe's older readers do: the first bytes of an
/// embedded font are XORed with a key derived from the book's unique identifier, so that the font cannot be
/// lifted from the unzipped book as is. Reading systems undo it; so does the publication route, because a web
/// reader loads the font straight from our URL.
struct FontObfuscation: Codable, Sendable, Equatable {
    /// The key, repeated over the first `length` bytes.
    var key: [UInt8]
    var length: Int

    static let idpfAlgorithm = "http://www.idpf.org/2008/embedding"
    static let adobeAlgorithm = "http://ns.adobe.com/pdf/enc#RC"

    /// The obfuscation `algorithm` applies with the package's `uniqueIdentifier`, or nil for an algorithm that is
    /// real encryption (which we cannot undo) or an identifier Adobe's scheme cannot use.
    init?(algorithm: String, uniqueIdentifier: String) {
        switch algorithm {
        case Self.idpfAlgorithm:
            // SHA-1 of the identifier without white space, over the first 1,040 bytes.
            let identifier = uniqueIdentifier.filter { !" \t\r\n".contains($0) }
            key = Array(Insecure.SHA1.hash(data: Data(identifier.utf8)))
            length = 1040
        case Self.adobeAlgorithm:
            // The 16 bytes of the identifier's UUID, over the first 1,024 bytes.
            let hex = uniqueIdentifier.lowercased().replacingOccurrences(of: "urn:uuid:", with: "").filter(\.isHexDigit)
            guard hex.count == 32 else { return nil }
            key = stride(from: 0, to: 32, by: 2).map { offset in
                let start = hex.index(hex.startIndex, offsetBy: offset)
                return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
            }
            length = 1024
        default:
            return nil
        }
    }

    /// The font as it was before obfuscation (the operation is its own inverse).
    func apply(to data: Data) -> Data {
        var bytes = data
        apply(to: &bytes, at: 0)
        return bytes
    }

    /// The same for a piece of the font that starts at byte `offset` of it.
    func apply(to piece: inout Data, at offset: Int) {
        guard offset < length else { return }
        piece.withUnsafeMutableBytes { buffer in
            for index in 0..<min(length - offset, buffer.count) { buffer[index] ^= key[(offset + index) % key.count] }
        }
    }
}
