/// What the gateway accepts as a path. The services' routers skip empty segments (`/me//events` and `/me/events/` reach
/// `/me/events`), so a middleware that matched a path as written could be passed by another spelling of it: the event
/// streams' cap was. Every path is checked here once, before any middleware looks at it, and matched by `matchable`.
enum PathShape {
    /// Whether `path` is a spelling the gateway serves: no empty segment but a trailing one (`/me/annotations/`, a
    /// publication's folder), no `.` or `..` segment, no percent-encoded letter, digit or `-._~` (RFC 3986's unreserved
    /// characters, which a router would not decode before matching but a proxy further on might).
    static func isServed(_ path: String) -> Bool {
        guard path.hasPrefix("/") else { return false }
        let segments = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
        for (index, segment) in segments.enumerated() {
            if segment.isEmpty, index != segments.count - 1 { return false }
            if segment.elementsEqual(".".utf8) || segment.elementsEqual("..".utf8) { return false }
        }
        return !containsEncodedUnreserved(path)
    }

    /// `path` as routes are matched: without its trailing slash.
    static func matchable(_ path: String) -> Substring {
        path.count > 1 && path.hasSuffix("/") ? path.dropLast() : Substring(path)
    }

    private static func containsEncodedUnreserved(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                let byte = UInt8(high << 4 | low)
                let unreserved =
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || [UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~")].contains(byte)
                if unreserved { return true }
                index += 3
            } else {
                index += 1
            }
        }
        return false
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
