import Foundation

/// HTTP Basic credentials (`Authorization: Basic base64(login:secret)`).
public struct BasicAuthorization: Sendable, Equatable {
    public let login: String
    public let secret: String

    /// The credentials in an `Authorization` header value, or nil when it is not Basic or is malformed.
    public init?(header: String?) {
        guard let header, header.count < 4096, header.lowercased().hasPrefix("basic ") else { return nil }
        guard let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        login = String(text[..<colon])
        secret = String(text[text.index(after: colon)...])
        guard !login.isEmpty else { return nil }
    }

    /// The bearer token in an `Authorization` header value.
    public static func bearer(_ header: String?) -> String? {
        guard let header, header.lowercased().hasPrefix("bearer ") else { return nil }
        let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
