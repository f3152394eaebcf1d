import Foundation

/// The public paths that one service links to and another serves, defined once (the Swift Package Index's `SiteURL`
/// is the model). A service builds links to its own routes as it likes; a link or a routing decision about another
/// service's route goes through here.
public enum PublicRoute: Sendable, Equatable {
    /// `/auth/document` (patron): the Authentication for OPDS document.
    case authDocument
    /// `/me` (patron): the profile; `DELETE` deletes the account.
    case me
    /// `/me/password` (patron).
    case password
    /// `/me/sessions/revoke-all` (patron).
    case revokeAllSessions
    /// `/me/books` (patron): the patron's books as JSON.
    case myBooks
    /// `/me/books/{id}` (patron): one book's circulation state and actions.
    case myBook(UUID)
    /// `/me/books/{id}/hold` (patron).
    case hold(UUID)
    /// `/me/books/{id}/position` (patron).
    case position(UUID)
    /// `/me/annotations/{id}` (patron): a book's annotations for OPDS apps.
    case annotations(UUID)
    /// `/opds/shelf` (catalog): the patron's books as an OPDS feed.
    case shelfFeed
    /// `/books/{id}/cover` (catalog).
    case cover(UUID)

    public var path: String {
        switch self {
        case .authDocument: "/auth/document"
        case .me: "/me"
        case .password: "/me/password"
        case .revokeAllSessions: "/me/sessions/revoke-all"
        case .myBooks: "/me/books"
        case .myBook(let id): "/me/books/\(id.lowercased)"
        case .hold(let id): "/me/books/\(id.lowercased)/hold"
        case .position(let id): "/me/books/\(id.lowercased)/position"
        case .annotations(let id): "/me/annotations/\(id.lowercased)"
        case .shelfFeed: "/opds/shelf"
        case .cover(let id): "/books/\(id.lowercased)/cover"
        }
    }

    /// The absolute URL under the deployment's public base URL.
    public func url(_ publicURL: String) -> String { publicURL + path }
}
