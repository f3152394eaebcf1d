import Foundation

/// The `/internal` paths one service calls (with the service token) and another serves, defined once. The serving
/// controller registers the same paths under its `/internal` group.
public enum InternalRoute: RouteDefinition, Equatable {
    public typealias ID = RouteParameter<UUID>

    // Served by catalog.
    /// `PUT`: a book's circulation figures from patron (outbox).
    case bookFigures(ID)
    /// `PUT`: several books' circulation figures at once (a JSON array), from patron's outbox (`OutboxBatch`).
    case figures
    /// `PUT`: a patron's erasure, from patron (outbox).
    case patronErasure(ID)
    /// `GET`: a patron's lists, for the patron's export.
    case patronLists(ID)
    /// `PUT`: a patron's shelf copy, pushed by patron after each change. `GET`: what the gateway needs of it to join
    /// shared pages with it (`ShelfSummary`).
    case shelfCopy(ID)
    /// `GET`: the shelf versions a catalog replica heard announced, followed by gateways (`ShelfAnnouncements`).
    case shelfAnnouncements
    /// `GET`: a book's reading order, for bookmarks' chapter names.
    case readingOrder(ID)

    // Served by patron.
    /// `PUT`: a book's licence (copies, open access) from catalog (outbox).
    case license(ID)
    /// `PUT`: several books' licences at once (a JSON array), from catalog's outbox (`OutboxBatch`).
    case licenses
    /// `GET`: a patron's shelf (book id -> state), for feeds' personal overlay.
    case patronShelf(ID)
    /// `GET`: whether a patron may download a book now.
    case loanCheck(patron: ID, book: ID)
    /// `POST`: a download event catalog saw for a patron's loan.
    case bookEvents(patron: ID, book: ID)
    /// `GET`: books borrowed by patrons who borrowed this one (its query: `?limit=`).
    case coBorrowed(ID)
    /// `GET`: what a patron liked, had and ignored, for recommendations.
    case taste(ID)
    /// `GET`: whether a sign-in session is open (the gateway's check).
    case session(ID)
    /// `POST` (`IDsAsked`): whether each of many sign-in sessions is open (the gateway's background renewals).
    case sessionStatuses
    /// `POST`: checks HTTP Basic credentials (the gateway's check).
    case basicCredentials
    /// `GET`: the stamp of a patron's current secret (the gateway's check that a kept Basic verdict still holds).
    case secretStamp(ID)
    /// `POST` (`IDsAsked`): the stamps of many patrons' current secrets (the gateway's background renewals).
    case secretStamps

    /// The path, with `:name` placeholders where the route was made with `.key`.
    public var path: String {
        switch self {
        case .bookFigures(let id): "/internal/books/" + id.segment(or: ":id") + "/figures"
        case .figures: "/internal/figures"
        case .patronErasure(let id): "/internal/patrons/" + id.segment(or: ":patron") + "/erasure"
        case .patronLists(let id): "/internal/patrons/" + id.segment(or: ":patron") + "/lists"
        case .shelfCopy(let id): "/internal/shelves/" + id.segment(or: ":patron")
        case .shelfAnnouncements: "/internal/shelf-announcements"
        case .readingOrder(let id): "/internal/books/" + id.segment(or: ":id") + "/reading-order"
        case .license(let id): "/internal/licenses/" + id.segment(or: ":id")
        case .licenses: "/internal/licenses"
        case .patronShelf(let id): "/internal/patrons/" + id.segment(or: ":patron") + "/shelf"
        case .loanCheck(let patron, let book): "/internal/patrons/" + patron.segment(or: ":patron") + "/loans/" + book.segment(or: ":id")
        case .bookEvents(let patron, let book):
            "/internal/patrons/" + patron.segment(or: ":patron") + "/books/" + book.segment(or: ":id") + "/events"
        case .coBorrowed(let id): "/internal/books/" + id.segment(or: ":id") + "/co-borrowed"
        case .taste(let id): "/internal/patrons/" + id.segment(or: ":patron") + "/taste"
        case .session(let id): "/internal/sessions/" + id.segment(or: ":id")
        case .sessionStatuses: "/internal/sessions/statuses"
        case .basicCredentials: "/internal/auth/basic"
        case .secretStamp(let id): "/internal/patrons/" + id.segment(or: ":patron") + "/secret-stamp"
        case .secretStamps: "/internal/patrons/secret-stamps"
        }
    }
}

/// The cases with values, as callers build them: `InternalRoute.license(book.id)`.
extension InternalRoute {
    public static func bookFigures(_ id: UUID) -> Self { .bookFigures(.value(id)) }
    public static func patronErasure(_ id: UUID) -> Self { .patronErasure(.value(id)) }
    public static func patronLists(_ id: UUID) -> Self { .patronLists(.value(id)) }
    public static func shelfCopy(_ id: UUID) -> Self { .shelfCopy(.value(id)) }
    public static func readingOrder(_ id: UUID) -> Self { .readingOrder(.value(id)) }
    public static func license(_ id: UUID) -> Self { .license(.value(id)) }
    public static func patronShelf(_ id: UUID) -> Self { .patronShelf(.value(id)) }
    public static func loanCheck(patron: UUID, book: UUID) -> Self { .loanCheck(patron: .value(patron), book: .value(book)) }
    public static func bookEvents(patron: UUID, book: UUID) -> Self { .bookEvents(patron: .value(patron), book: .value(book)) }
    public static func coBorrowed(_ id: UUID) -> Self { .coBorrowed(.value(id)) }
    public static func taste(_ id: UUID) -> Self { .taste(.value(id)) }
    public static func session(_ id: UUID) -> Self { .session(.value(id)) }
    public static func secretStamp(_ id: UUID) -> Self { .secretStamp(.value(id)) }
}
