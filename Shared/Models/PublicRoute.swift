import Foundation

/// The public API's paths, defined once (the Swift Package Index's `SiteURL` is the model): every link a service
/// writes into a feed, a document or a header is built from these, whichever service serves the path.
/// `SharedRoutesTests` checks that each is a route of the service `PublicService.serving` names.
public enum PublicRoute: Sendable, Equatable {
    // Catalog: feeds.
    /// `/opds`: the root navigation feed.
    case catalogRoot
    /// `/opds/groups`: every lane's first books.
    case groups
    /// `/opds/lanes/{slug}`.
    case lane(String)
    /// `/opds/series/{name}`, the name already percent-encoded as one path segment.
    case series(String)
    /// `/opds/authors/{name}`, the name already percent-encoded as one path segment.
    case author(String)
    /// `/opds/search` (the query is the caller's).
    case search
    /// `/opds/recommended`.
    case recommended
    /// `/opds/books/{id}`: a book's OPDS entry.
    case entry(UUID)
    /// `/opds/books/{id}/related`.
    case related(UUID)
    /// `/opds/shelf`: the patron's books as an OPDS feed.
    case shelfFeed
    /// `/opds/lists/{id}`: a list as a feed.
    case listFeed(UUID)

    // Catalog: a book's files.
    /// `/books/{id}/publication/`: the folder of a book's resources (each resource's path follows it).
    case publication(UUID)
    /// `/books/{id}/fulfill`: the EPUB.
    case fulfill(UUID)
    /// `/books/{id}/cover`.
    case cover(UUID)
    /// `/books/{id}/manifest.json`: the Readium manifest.
    case manifest(UUID)

    // Patron.
    /// `/auth/document`: the Authentication for OPDS document.
    case authDocument
    /// `/auth/token`.
    case token
    /// `/auth/refresh`.
    case refresh
    /// `/auth/signup`.
    case signup
    /// `/me`: the profile; `DELETE` deletes the account.
    case me
    /// `/me/password`.
    case password
    /// `/me/sessions/revoke-all`.
    case revokeAllSessions
    /// `/me/books`: the patron's books as JSON.
    case myBooks
    /// `/me/books/{id}`: one book's circulation state and actions.
    case myBook(UUID)
    /// `/me/books/{id}/{action}`: a circulation action on one book.
    case circulation(UUID, CirculationAction)
    /// `/me/books/{id}/position`.
    case position(UUID)
    /// `/me/annotations/{bookId}`, or every book's without one.
    case annotations(UUID?)

    /// The actions on a patron's book that have a path of their own under `/me/books/{id}/`.
    public enum CirculationAction: String, Sendable {
        case borrow, hold, accept, decline, dismiss, renew, suspend, resume
        case returnLoan = "return"
    }

    public var path: String { url("") }

    /// The path as the text before the id it names, the id, and the text after it (a route without an id has its
    /// whole path before): `url` writes them into one string, where interpolating the id and adding the base URL
    /// allocated three (five links an entry, fifty entries a feed page).
    private var pieces: (head: String, id: UUID?, tail: String) {
        switch self {
        case .catalogRoot: ("/opds", nil, "")
        case .groups: ("/opds/groups", nil, "")
        case .lane(let slug): ("/opds/lanes/" + slug, nil, "")
        case .series(let name): ("/opds/series/" + name, nil, "")
        case .author(let name): ("/opds/authors/" + name, nil, "")
        case .search: ("/opds/search", nil, "")
        case .recommended: ("/opds/recommended", nil, "")
        case .entry(let id): ("/opds/books/", id, "")
        case .related(let id): ("/opds/books/", id, "/related")
        case .shelfFeed: ("/opds/shelf", nil, "")
        case .listFeed(let id): ("/opds/lists/", id, "")
        case .publication(let id): ("/books/", id, PublicationPath.folder)
        case .fulfill(let id): ("/books/", id, "/fulfill")
        case .cover(let id): ("/books/", id, "/cover")
        case .manifest(let id): ("/books/", id, "/manifest.json")
        case .authDocument: ("/auth/document", nil, "")
        case .token: ("/auth/token", nil, "")
        case .refresh: ("/auth/refresh", nil, "")
        case .signup: ("/auth/signup", nil, "")
        case .me: ("/me", nil, "")
        case .password: ("/me/password", nil, "")
        case .revokeAllSessions: ("/me/sessions/revoke-all", nil, "")
        case .myBooks: ("/me/books", nil, "")
        case .myBook(let id): ("/me/books/", id, "")
        case .circulation(let id, let action): ("/me/books/", id, "/" + action.rawValue)
        case .position(let id): ("/me/books/", id, "/position")
        case .annotations(let id): ("/me/annotations/", id, "")
        }
    }

    /// The absolute URL under the deployment's public base URL.
    public func url(_ publicURL: String) -> String {
        let (head, id, tail) = pieces
        return publicURL + head + (id?.lowercased ?? "") + tail
    }
}
