import Foundation

/// Circulation figures of one book, sent by patron to catalog through the outbox
/// (`PUT /internal/books/{id}/figures`). `version` grows with every change; catalog ignores older versions.
public struct CirculationFigures: Codable, Sendable, Equatable {
    public var bookId: UUID
    public var copiesTotal: Int
    public var copiesAvailable: Int
    public var holds: Int
    public var checkouts: Int
    public var ratingAverage: Double?
    public var ratingCount: Int
    public var version: Int64

    public init(
        bookId: UUID, copiesTotal: Int, copiesAvailable: Int, holds: Int, checkouts: Int, ratingAverage: Double?, ratingCount: Int,
        version: Int64
    ) {
        self.bookId = bookId
        self.copiesTotal = copiesTotal
        self.copiesAvailable = copiesAvailable
        self.holds = holds
        self.checkouts = checkouts
        self.ratingAverage = ratingAverage
        self.ratingCount = ratingCount
        self.version = version
    }
}

/// The licence of one book, sent by catalog to patron through its outbox (`PUT /internal/licenses/{id}`).
/// `version` grows with every change; patron ignores older versions.
public struct License: Codable, Sendable, Equatable {
    public var bookId: UUID
    public var copies: Int
    public var openAccess: Bool
    public var withdrawn: Bool
    public var title: String
    public var authors: [String]
    public var version: Int64
    /// Whether the book has a cover image (nil from a catalog older than this field: assume it has).
    public var hasCover: Bool?

    public init(
        bookId: UUID, copies: Int, openAccess: Bool, withdrawn: Bool, title: String, authors: [String], version: Int64, hasCover: Bool? = nil
    ) {
        self.bookId = bookId
        self.copies = copies
        self.openAccess = openAccess
        self.withdrawn = withdrawn
        self.title = title
        self.authors = authors
        self.version = version
        self.hasCover = hasCover
    }
}

/// One patron's relation to one book as catalog needs it to personalise an entry.
public struct PatronBookView: Codable, Sendable, Equatable {
    public var bookId: UUID
    public var state: BookState
    public var holdPosition: Int?
    public var dueAt: Date?
    public var offerExpiresAt: Date?
    public var since: Date?
    /// A suspended hold's date: no offer reaches it before.
    public var suspendedUntil: Date?

    public init(
        bookId: UUID, state: BookState, holdPosition: Int? = nil, dueAt: Date? = nil, offerExpiresAt: Date? = nil, since: Date? = nil,
        suspendedUntil: Date? = nil
    ) {
        self.bookId = bookId
        self.state = state
        self.holdPosition = holdPosition
        self.dueAt = dueAt
        self.offerExpiresAt = offerExpiresAt
        self.since = since
        self.suspendedUntil = suspendedUntil
    }
}

/// Everything catalog needs to personalise a page for one patron, fetched once per page
/// (`GET /internal/patrons/{id}/shelf`): the books not in state NONE, the ignored books and the count of items
/// waiting for action.
public struct PatronShelf: Codable, Sendable, Equatable {
    public var books: [PatronBookView]
    public var ignored: [UUID]
    public var waitingForAction: Int

    public init(books: [PatronBookView], ignored: [UUID], waitingForAction: Int) {
        self.books = books
        self.ignored = ignored
        self.waitingForAction = waitingForAction
    }
}

/// Body of catalog's `PUT /internal/shelves/{patron}`: a patron's shelf as patron read it, and the version of that
/// reading (increasing for each patron, so that catalog keeps the newest whatever order copies arrive in).
public struct ShelfCopy: Codable, Sendable, Equatable {
    public var version: Int64
    public var shelf: PatronShelf

    public init(version: Int64, shelf: PatronShelf) {
        self.version = version
        self.shelf = shelf
    }
}

/// Request of `POST /internal/auth/basic`: credentials that the gateway received as HTTP Basic.
public struct BasicCredentials: Codable, Sendable {
    public var login: String
    public var secret: String
    public var clientAddress: String?

    public init(login: String, secret: String, clientAddress: String?) {
        self.login = login
        self.secret = secret
        self.clientAddress = clientAddress
    }
}

/// Answer of `POST /internal/auth/basic` when the credentials are good.
public struct AuthenticatedPatron: Codable, Sendable {
    public var patronId: UUID

    public init(patronId: UUID) { self.patronId = patronId }
}

/// Answer of `GET /internal/patrons/{id}/loans/{bookId}`: may this patron download this book now?
public struct LoanCheck: Codable, Sendable {
    public var active: Bool
    public var state: BookState

    public init(active: Bool, state: BookState) {
        self.active = active
        self.state = state
    }
}

/// Answer of `GET /internal/sessions/{id}`: whether a sign-in session is still open (not logged out, not revoked for
/// refresh-token reuse, its account not deleted). The gateway asks before it trusts an access token of the session.
public struct SessionStatus: Codable, Sendable {
    public var open: Bool

    public init(open: Bool) { self.open = open }
}

/// Request of `POST /internal/patrons/{id}/books/{bookId}/events`: an event catalog saw (a download).
public struct ReportedEvent: Codable, Sendable {
    public var event: BookEvent

    public init(event: BookEvent) { self.event = event }
}

/// Header names shared by the gateway and the services.
public enum InternalHeader {
    /// The authenticated patron, set by the gateway only.
    public static let patronID = "X-Patron-ID"
    /// The client's address as the gateway saw it.
    public static let clientAddress = "X-Client-Address"
    /// The service token, proof that a request comes from inside.
    public static let serviceToken = "X-Service-Token"
    /// The request id, end to end.
    public static let requestID = "X-Request-ID"
    /// On a signed-in feed request: the ETag of the shared (anonymous) page the gateway holds in its edge cache.
    public static let sharedETag = "X-Internal-Shared-ETag"
    /// On catalog's 204 answer to it: the held page is this patron's page (with the answer's ETag and Cache-Control).
    public static let sharedPageUsable = "X-Internal-Shared-Page"
    /// On patron's answer to a change: the version of the patron's shelf that catalog now holds. The gateway sends
    /// it back with the patron's next catalog requests, so that a catalog replica whose in-memory copy is older
    /// reads the newer one (read-your-writes across replicas).
    public static let shelfVersion = "X-Internal-Shelf-Version"
}

/// Answer of patron's `GET /internal/books/{id}/co-borrowed`: books that at least three of the book's borrowers also
/// borrowed, most shared first (ids only: nobody's history is revealed).
public struct CoBorrowedBooks: Codable, Sendable, Equatable {
    public var books: [UUID]

    public init(books: [UUID]) { self.books = books }
}

/// Answer of patron's `GET /internal/patrons/{id}/taste`, for the patron's recommendations: books they liked
/// (favourites, good ratings, loans; strongest first), every book they ever borrowed, and books co-borrowed with
/// those they liked.
public struct PatronTaste: Codable, Sendable, Equatable {
    public var liked: [UUID]
    public var had: [UUID]
    public var coBorrowed: [UUID]

    public init(liked: [UUID], had: [UUID], coBorrowed: [UUID]) {
        self.liked = liked
        self.had = had
        self.coBorrowed = coBorrowed
    }
}

/// Body of catalog's `PUT /internal/patrons/{id}/erasure`, sent through patron's outbox when an account is deleted:
/// catalog forgets what it holds of the patron (their lists, the copy of their shelf).
public struct PatronErasure: Codable, Sendable, Equatable {
    public var patronId: UUID

    public init(patronId: UUID) { self.patronId = patronId }
}

/// Answer of catalog's `GET /internal/patrons/{id}/lists`: the patron's own lists with their books in order, for the
/// patron's data export.
public struct ExportedLists: Codable, Sendable, Equatable {
    public struct List: Codable, Sendable, Equatable {
        public var id: UUID
        public var title: String
        public var description: String
        public var isPublic: Bool
        public var books: [UUID]
        public var createdAt: Date
        public var updatedAt: Date

        enum CodingKeys: String, CodingKey {
            case id, title, description, isPublic = "public", books, createdAt, updatedAt
        }

        public init(id: UUID, title: String, description: String, isPublic: Bool, books: [UUID], createdAt: Date, updatedAt: Date) {
            self.id = id
            self.title = title
            self.description = description
            self.isPublic = isPublic
            self.books = books
            self.createdAt = createdAt
            self.updatedAt = updatedAt
        }
    }

    public var lists: [List]

    public init(lists: [List]) { self.lists = lists }
}
