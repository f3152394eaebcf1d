/// Text as one percent-encoded URL path segment: every UTF-8 byte but a path's characters (Foundation's
/// `urlPathAllowed` without "/?#%;") as %XX, as `addingPercentEncoding` gave it. Written byte by byte: Foundation's
/// went through NSString and a character set built at each call, for every author and series link of every feed
/// entry (a tenth of catalog's time on a cold lane page).
enum PathSegment {
    static func encode(_ text: some StringProtocol) -> String {
        let utf8 = text.utf8
        if utf8.allSatisfy({ $0 < 128 && kept[Int($0)] }) { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if byte < 128 && kept[Int(byte)] {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                for half in [byte >> 4, byte & 0x0F] { bytes.append(half < 10 ? UInt8(ascii: "0") + half : UInt8(ascii: "A") + half - 10) }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The ASCII characters a segment keeps as they are: letters, digits and "!$&'()*+,-.:=@_~".
    private static let kept: [Bool] = (0..<128).map { code in
        let character = Character(Unicode.Scalar(UInt8(code)))
        return character.isASCII && (character.isLetter || character.isNumber) || "!$&'()*+,-.:=@_~".contains(character)
    }
}
