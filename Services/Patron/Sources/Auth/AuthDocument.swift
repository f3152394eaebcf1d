import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceSupport
import Shared

/// The Authentication for OPDS 1.0 document: how clients sign in (Basic with library card and PIN, or a bearer
/// token from `/auth/token`), with the links an app needs.
struct AuthDocument: Encodable, Sendable {
    struct Link: Encodable, Sendable {
        var rel: String
        var href: String
        var type: String?
    }

    struct Input: Encodable, Sendable {
        var keyboard: String
        var maximumLength: Int?
        var barcodeFormat: String?

        enum CodingKeys: String, CodingKey {
            case keyboard
            case maximumLength = "maximum_length"
            case barcodeFormat = "barcode_format"
        }
    }

    struct Flow: Encodable, Sendable {
        var type: String
        var description: String?
        var labels: [String: String]?
        var inputs: [String: Input]?
        var links: [Link]?
    }

    static let mediaType = MediaType.authentication

    var id: String
    var title: String
    var description: String
    var authentication: [Flow]
    var links: [Link]
    /// What staff announce now (Palace's `announcements`: `[{"id", "content"}]`); only in the document `GET
    /// /auth/document` answers.
    var announcements: [AnnouncementPostgresRepository.Current]?

    /// `offersSignUp`: the `register` link, only while local accounts are on (`PATRON_AUTH`). `singleSignOn`: the
    /// label of the identity provider's flow (OPDS' implicit flow: the app opens `authenticate` with its
    /// `redirect_uri`), when `PATRON_AUTH` names `oidc`.
    init(publicURL: String, logoURL: String? = nil, helpURL: String? = nil, offersSignUp: Bool = true, singleSignOn: String? = nil) {
        id = PublicRoute.authDocument.url(publicURL)
        title = "Bookmobile"
        description = "Sign in with your library card number and PIN."
        authentication = [
            Flow(
                type: "http://opds-spec.org/auth/basic",
                description: "Library card and PIN (or username and password)",
                labels: ["login": "Library card", "password": "PIN"],
                inputs: [
                    "login": Input(keyboard: "Number pad", maximumLength: 14, barcodeFormat: "Codabar"),
                    "password": Input(keyboard: "Number pad", maximumLength: 8, barcodeFormat: nil),
                ]
            ),
            Flow(
                type: "http://opds-spec.org/auth/oauth/password",
                description: "Bearer access tokens: RFC 6749 password and refresh_token grants (form-encoded or JSON), or Basic credentials",
                links: [
                    Link(rel: "authenticate", href: PublicRoute.token.url(publicURL), type: MediaType.json),
                    Link(rel: "refresh", href: PublicRoute.refresh.url(publicURL), type: MediaType.json),
                ]
            ),
        ]
        if let singleSignOn {
            authentication.append(
                Flow(
                    type: "http://opds-spec.org/auth/oauth/implicit",
                    description: singleSignOn,
                    links: [Link(rel: "authenticate", href: PublicRoute.singleSignOn.url(publicURL), type: "text/html")]
                )
            )
        }
        links = [
            Link(
                rel: "http://librarysimplified.org/terms/rel/user-profile",
                href: publicURL + "/me",
                type: "application/vnd.librarysimplified.user-profile+json"
            ),
            Link(
                rel: "http://opds-spec.org/shelf",
                href: PublicRoute.myBooks.url(publicURL),
                type: MediaType.acquisition
            ),
            Link(rel: "start", href: PublicRoute.catalogRoot.url(publicURL), type: MediaType.navigation),
        ]
        if offersSignUp { links.insert(Link(rel: "register", href: PublicRoute.signup.url(publicURL), type: MediaType.json), at: 0) }
        if let logoURL { links.append(Link(rel: "logo", href: logoURL)) }
        if let helpURL { links.append(Link(rel: "help", href: helpURL, type: "text/html")) }
    }

    func response(status: HTTPResponse.Status = .ok) throws -> Response {
        var headers: HTTPFields = [:]
        if status == .unauthorized {
            headers[.wwwAuthenticate] = "Basic realm=\"Library card\""
            headers[HTTPField.Name("Link")!] = "<\(id)>; rel=\"http://opds-spec.org/auth/document\"; type=\"\(AuthDocument.mediaType)\""
        }
        return try JSONMessages.response(self, status: status, contentType: AuthDocument.mediaType, headers: headers)
    }
}
