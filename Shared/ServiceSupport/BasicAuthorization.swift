import Foundation

/// HTTP Basic credentials (`Authorization: Basic base64(login:secret)`).
public struct BasicAuthorization: Sendable, Equatable {
    public let login: String
    public let secret: String

    /// The credentials in an `Authorization` header value, or nil when it is not Basic or is malformed.
    public init?(header: String?) {
        guard let header, header.utf8.count < 4096, let encoded = Self.value(of: header, scheme: "basic"),
            let data = Data(base64Encoded: encoded), let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        login = String(text[..<colon])
        secret = String(text[text.index(after: colon)...])
        guard !login.isEmpty else { return nil }
    }

    /// The bearer token in an `Authorization` header value.
    public static func bearer(_ header: String?) -> String? {
        header.flatMap { value(of: $0, scheme: "bearer") }
    }

    /// What follows `scheme` (lower-case letters, matched in any case) and a space in `header`, without the spaces and
    /// tabs around it; nil for another scheme or nothing after it. Read as bytes: every signed-in request passes here,
    /// and lower-casing the whole header and Foundation's trimming were a twentieth of the gateway's time.
    static func value(of header: String, scheme: String) -> String? {
        let bytes = header.utf8
        let name = scheme.utf8
        let space = UInt8(ascii: " ")
        let tab = UInt8(ascii: "\t")
        guard bytes.count > name.count, zip(bytes, name).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
        var start = bytes.index(bytes.startIndex, offsetBy: name.count)
        guard bytes[start] == space else { return nil }
        var end = bytes.endIndex
        while start < end, bytes[start] == space || bytes[start] == tab { start = bytes.index(after: start) }
        while end > start, bytes[bytes.index(before: end)] == space || bytes[bytes.index(before: end)] == tab { end = bytes.index(before: end) }
        return start < end ? String(header[start..<end]) : nil
    }
}
