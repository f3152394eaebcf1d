import Foundation
import ServiceSupport
import Shared

/// Why a circulation request was refused.
enum CirculationError: ProblemConvertible, Equatable {
    case unknownBook(UUID)
    case illegal(IllegalTransition)
    case noCopiesAvailable(UUID, publicURL: String)
    case loanLimit(Int)
    case holdLimit(Int)
    /// Too many saved or ignored books (`list` is "saved" or "ignored").
    case listLimit(list: String, limit: Int)
    case holdsWaiting
    /// Only a book on loan can be renewed; the patron's state of it is `state`.
    case notOnLoan(BookState)
    case notClientEvent(String)
    case openAccess
    /// Staff blocked the patron, for `reason`.
    case patronBlocked(reason: String)
    /// The book's audience is not one a teen's or a child's card may borrow or hold.
    case notForThisCard(AudienceLimit)

    var problem: Problem {
        switch self {
        case .unknownBook(let id):
            Problem.notFound("No book \(id) is lendable here")
        case .illegal(let refusal):
            Problem(
                status: 409,
                slug: "illegal-transition",
                title: "Conflict",
                detail: "'\(refusal.event.rawValue)' is not allowed while the book is '\(refusal.state.rawValue)'",
                state: refusal.state.rawValue,
                allowedEvents: refusal.allowedEvents.map(\.rawValue)
            )
        case .noCopiesAvailable(let id, let publicURL):
            Problem(
                status: 409,
                slug: "no-copies-available",
                title: "Conflict",
                detail: "Every copy is on loan; join the hold queue instead",
                links: [
                    ProblemLink(rel: "http://opds-spec.org/acquisition/hold", href: PublicRoute.circulation(id, .hold).url(publicURL), method: "POST")
                ]
            )
        case .loanLimit(let limit):
            Problem(status: 403, slug: "loan-limit-reached", title: "Forbidden", detail: "You may have at most \(limit) loans at once", limit: limit)
        case .listLimit(let list, let limit):
            Problem(
                status: 403,
                slug: "\(list)-limit-reached",
                title: "Forbidden",
                detail: "You may have at most \(limit) \(list) books",
                limit: limit
            )
        case .holdLimit(let limit):
            Problem(status: 403, slug: "hold-limit-reached", title: "Forbidden", detail: "You may have at most \(limit) holds at once", limit: limit)
        case .notOnLoan(let state):
            Problem(
                status: 409,
                slug: "illegal-transition",
                title: "Conflict",
                detail: "Only a book on loan can be renewed",
                state: state.rawValue,
                allowedEvents: BookMachine.allowedEvents(from: state).map(\.rawValue)
            )
        case .holdsWaiting:
            Problem.conflict("holds-waiting", "Other patrons are waiting for this book, so the loan cannot be renewed")
        case .patronBlocked(let reason):
            Problem(
                status: 403,
                slug: "patron-blocked",
                title: "Forbidden",
                detail: "Your library has blocked borrowing and holds on this account: \(reason). Ask the library for help."
            )
        case .notForThisCard(let limit):
            Problem(
                status: 403,
                slug: "not-for-this-card",
                title: "Forbidden",
                detail: "This book is not among those a \(limit.rawValue)'s card borrows; ask the library for help."
            )
        case .openAccess:
            Problem.conflict("open-access", "Open-access books need no loan or hold: download them directly")
        case .notClientEvent(let name):
            Problem.badRequest("event must be one of \(BookEvent.clientReported.map(\.rawValue).sorted()), got '\(name)'")
        }
    }
}
