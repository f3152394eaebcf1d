import Foundation

/// The `/internal` paths one service calls (with the service token) and another serves, defined once. The serving
/// controller registers the same paths under its `/internal` group.
public enum InternalRoute: Sendable, Equatable {
    // Served by catalog.
    /// `PUT`: a book's circulation figures from patron (outbox).
    case bookFigures(UUID)
    /// `PUT`: several books' circulation figures at once (a JSON array), from patron's outbox (`OutboxBatch`).
    case figures
    /// `PUT`: a patron's erasure, from patron (outbox).
    case patronErasure(UUID)
    /// `GET`: a patron's lists, for the patron's export.
    case patronLists(UUID)
    /// `PUT`: a patron's shelf copy, pushed by patron after each change.
    case shelfCopy(UUID)
    /// `GET`: a book's reading order, for bookmarks' chapter names.
    case readingOrder(UUID)

    // Served by patron.
    /// `PUT`: a book's licence (copies, open access) from catalog (outbox).
    case license(UUID)
    /// `PUT`: several books' licences at once (a JSON array), from catalog's outbox (`OutboxBatch`).
    case licenses
    /// `GET`: a patron's shelf (book id -> state), for feeds' personal overlay.
    case patronShelf(UUID)
    /// `GET`: whether a patron may download a book now.
    case loanCheck(patron: UUID, book: UUID)
    /// `POST`: a download event catalog saw for a patron's loan.
    case bookEvents(patron: UUID, book: UUID)
    /// `GET`: books borrowed by patrons who borrowed this one.
    case coBorrowed(UUID, limit: Int)
    /// `GET`: what a patron liked, had and ignored, for recommendations.
    case taste(UUID)
    /// `GET`: whether a sign-in session is open (the gateway's check).
    case session(UUID)
    /// `POST`: checks HTTP Basic credentials (the gateway's check).
    case basicCredentials
    /// `GET`: the stamp of a patron's current secret (the gateway's check that a kept Basic verdict still holds).
    case secretStamp(UUID)

    public var path: String {
        switch self {
        case .bookFigures(let id): "/internal/books/\(id.lowercased)/figures"
        case .figures: "/internal/figures"
        case .patronErasure(let id): "/internal/patrons/\(id.lowercased)/erasure"
        case .patronLists(let id): "/internal/patrons/\(id.lowercased)/lists"
        case .shelfCopy(let id): "/internal/shelves/\(id.lowercased)"
        case .readingOrder(let id): "/internal/books/\(id.lowercased)/reading-order"
        case .license(let id): "/internal/licenses/\(id.lowercased)"
        case .licenses: "/internal/licenses"
        case .patronShelf(let id): "/internal/patrons/\(id.lowercased)/shelf"
        case .loanCheck(let patron, let book): "/internal/patrons/\(patron.lowercased)/loans/\(book.lowercased)"
        case .bookEvents(let patron, let book): "/internal/patrons/\(patron.lowercased)/books/\(book.lowercased)/events"
        case .coBorrowed(let id, let limit): "/internal/books/\(id.lowercased)/co-borrowed?limit=\(limit)"
        case .taste(let id): "/internal/patrons/\(id.lowercased)/taste"
        case .session(let id): "/internal/sessions/\(id.lowercased)"
        case .basicCredentials: "/internal/auth/basic"
        case .secretStamp(let id): "/internal/patrons/\(id.lowercased)/secret-stamp"
        }
    }
}
