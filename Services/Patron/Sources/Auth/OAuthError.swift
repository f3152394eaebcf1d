import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceSupport
import Shared

/// RFC 6749 section 5.2's error response, for clients that sent an OAuth 2.0 grant: `{"error", "error_description"}`
/// with 400 (401 only for client authentication, which public clients do not use). A throttled attempt keeps 429 and
/// `Retry-After`, so that a client waits instead of asking the patron for the PIN again.
struct OAuthError: Error, Equatable {
    var status: Int
    var code: String
    var description: String
    var retryAfter: Int? = nil

    static func invalidRequest(_ description: String) -> OAuthError {
        OAuthError(status: 400, code: "invalid_request", description: description)
    }

    static func unsupportedGrantType(_ grantType: String) -> OAuthError {
        OAuthError(
            status: 400,
            code: "unsupported_grant_type",
            description: "Grant type \(grantType) is not supported; use password or refresh_token"
        )
    }

    /// The same refusal as a problem document gives, in RFC 6749's words: wrong credentials and unknown, expired or
    /// reused refresh tokens are all `invalid_grant`.
    init(_ error: AuthError) {
        let problem = error.problem
        switch error {
        case .throttled(_, _, let seconds):
            self.init(status: 429, code: "invalid_grant", description: problem.detail ?? "Too many attempts", retryAfter: seconds)
        case .ilsUnavailable(let seconds), .identityProviderUnavailable(let seconds):
            // RFC 6749 4.1.2.1's word for a server that cannot answer now; not the patron's fault.
            self.init(status: 503, code: "temporarily_unavailable", description: problem.detail ?? problem.title, retryAfter: seconds)
        default:
            self.init(status: 400, code: "invalid_grant", description: problem.detail ?? problem.title)
        }
    }

    init(status: Int, code: String, description: String, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.description = description
        self.retryAfter = retryAfter
    }

    private struct Body: Encodable {
        var error: String
        var errorDescription: String
        enum CodingKeys: String, CodingKey {
            case error
            case errorDescription = "error_description"
        }
    }

    func response() throws -> Response {
        var headers = TokenResponses.noStore
        if let retryAfter { headers[.retryAfter] = "\(retryAfter)" }
        return try JSONMessages.response(Body(error: code, errorDescription: description), status: .init(code: status), headers: headers)
    }
}
