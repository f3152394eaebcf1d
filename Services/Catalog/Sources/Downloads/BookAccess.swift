import Foundation
import Hummingbird
import Logging
import ServiceSupport
import Shared

/// Who may read a book's content (the EPUB, or its resources one by one): anyone for an open-access book,
/// otherwise a signed-in patron whose loan is active. Catalog's copy of the patron's shelf answers when it shows the
/// loan (the copy is at least as new as the patron's last change, `PatronShelves`, so a reader's many resource
/// requests cost no call); otherwise patron is asked, so that a copy that is behind never refuses a loan.
struct BookAccess: Sendable {
    let patron: InternalClient
    let shelves: PatronShelves

    /// The patron and their loan's state, nil for an open-access book. Throws 401 without a patron, 403 without an active loan.
    func check(_ book: BookRecord, request: Request, context: CatalogRequestContext) async throws -> (patronID: UUID, state: BookState)? {
        guard !book.openAccess else { return nil }
        guard let patronID = context.patronID else {
            throw Problem.unauthorized("Sign in and borrow this book to read it")
        }
        let copy = try await shelves.shelf(patronID: patronID, seen: request.shelfVersionSeen, logger: context.logger)
        if let view = copy.shelf.books.first(where: { $0.bookId == book.id }), view.state.isOnLoan { return (patronID, view.state) }
        let check = try await patron.get(
            InternalRoute.loanCheck(patron: patronID, book: book.id).path,
            as: LoanCheck.self,
            logger: context.logger
        )
        guard check.active else { throw Problem.forbidden("You have no active loan of this book (its state is '\(check.state.rawValue)')") }
        return (patronID, check.state)
    }

    /// `Cache-Control` for the book's content: shared caches only for open access.
    static func cacheControl(_ book: BookRecord) -> String { book.openAccess ? "public, max-age=86400" : "private, no-store" }
}
