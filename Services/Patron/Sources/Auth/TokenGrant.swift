import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// What a `/auth/token` or `/auth/refresh` request asks for, in any of the forms a client may send:
/// RFC 6749's form-encoded grants (`grant_type=password` with `username` and `password`, section 4.3;
/// `grant_type=refresh_token` with `refresh_token`, section 6), the same fields as JSON, HTTP Basic credentials with
/// no grant in the body (what OPDS apps send), and `{"refresh_token": ...}` without a grant type.
enum TokenGrant: Equatable {
    case password(login: String, secret: String)
    case refreshToken(String)

    /// Whether the client used RFC 6749's vocabulary (a `grant_type`), and so expects its error objects.
    struct Parsed: Equatable {
        var grant: TokenGrant
        var speaksOAuth: Bool
    }

    /// Reads the grant from a request's body and Authorization header. Throws `OAuthError` for an RFC 6749 request
    /// that is incomplete or names a grant we do not support, and a 400 problem for a body that is neither form nor JSON.
    static func parse(contentType: String?, body: Data, basic: BasicAuthorization?) throws -> Parsed? {
        let fields = try Self.fields(contentType: contentType, body: body)
        guard let grantType = fields["grant_type"] else {
            if let refresh = fields["refresh_token"] { return Parsed(grant: .refreshToken(refresh), speaksOAuth: false) }
            if let basic { return Parsed(grant: .password(login: basic.login, secret: basic.secret), speaksOAuth: false) }
            return nil
        }
        switch grantType {
        case "password":
            // RFC 6749 4.3.2: the credentials are in the body; a Basic header there would authenticate a client, and
            // public clients have none, so it is used only when the body leaves the credentials out.
            if let login = fields["username"], let secret = fields["password"] {
                return Parsed(grant: .password(login: login, secret: secret), speaksOAuth: true)
            }
            if let basic { return Parsed(grant: .password(login: basic.login, secret: basic.secret), speaksOAuth: true) }
            throw OAuthError.invalidRequest("The password grant needs username and password")
        case "refresh_token":
            guard let refresh = fields["refresh_token"], !refresh.isEmpty else {
                throw OAuthError.invalidRequest("The refresh_token grant needs refresh_token")
            }
            return Parsed(grant: .refreshToken(refresh), speaksOAuth: true)
        default:
            throw OAuthError.unsupportedGrantType(grantType)
        }
    }

    /// The body's top-level string fields, whether form-encoded or JSON. An empty body has none.
    static func fields(contentType: String?, body: Data) throws -> [String: String] {
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        if body.isEmpty { return [:] }
        if mediaType == "application/x-www-form-urlencoded" {
            guard let text = String(data: body, encoding: .utf8) else { throw OAuthError.invalidRequest("The form is not UTF-8") }
            return try formFields(text)
        }
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw Problem.badRequest("The body must be a JSON object or an application/x-www-form-urlencoded form")
        }
        return object.compactMapValues { $0 as? String }
    }

    /// `a=1&b=x+y` → ["a": "1", "b": "x y"]. RFC 6749 3.1: a parameter sent twice is an invalid request.
    static func formFields(_ text: String) throws -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else {
                throw OAuthError.invalidRequest("The form is not correctly percent-encoded")
            }
            guard fields[name] == nil else { throw OAuthError.invalidRequest("\(name) is sent more than once") }
            fields[name] = value
        }
        return fields
    }

    private static func decode(_ part: Substring) -> String? {
        part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
