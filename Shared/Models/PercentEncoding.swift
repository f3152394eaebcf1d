/// Text percent-encoded byte by byte: every UTF-8 byte but those a set keeps becomes %XX (upper-case hex), as
/// Foundation's `addingPercentEncoding` wrote it. Foundation's went through NSString and a character set built at each
/// call, for every author and series link of every feed entry (a tenth of catalog's time on a cold lane page).
public enum PercentEncoding {
    /// The ASCII characters a kind of URL part keeps as they are (letters and digits always).
    public struct Kept: Sendable {
        fileprivate let table: [Bool]

        init(_ punctuation: String) {
            table = (0..<128).map { code in
                let character = Character(Unicode.Scalar(UInt8(code)))
                return character.isASCII && (character.isLetter || character.isNumber) || punctuation.contains(character)
            }
        }

        fileprivate func keeps(_ byte: UInt8) -> Bool { byte < 128 && table[Int(byte)] }

        /// One path segment: Foundation's `urlPathAllowed` without "/?#%;".
        public static let pathSegment = Kept("!$&'()*+,-.:=@_~")
        /// RFC 3986's unreserved characters: query values, and everything AWS's Signature Version 4 encodes.
        public static let unreserved = Kept("-._~")
    }

    public static func encode(_ text: some StringProtocol, keeping kept: Kept) -> String {
        let utf8 = text.utf8
        if utf8.allSatisfy(kept.keeps) { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if kept.keeps(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                for half in [byte >> 4, byte & 0x0F] { bytes.append(half < 10 ? UInt8(ascii: "0") + half : UInt8(ascii: "A") + half - 10) }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
