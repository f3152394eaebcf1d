import Foundation
import ServiceSupport
import Shared

/// An upload whose ISBN belongs to a book already in the catalog, sent without `replace=true`: nothing changes, and
/// the 409 names the book that the operator would replace.
struct IngestConflict: Error, ProblemConvertible {
    var isbn: String
    var existing: UUID

    var problem: Problem {
        Problem(
            status: 409,
            slug: "isbn-exists",
            title: "Conflict",
            detail:
                "Book \(existing.lowercased) already has ISBN \(isbn); send the file again with replace=true to replace that book's file",
            links: [ProblemLink(rel: "existing", href: PublicRoute.entry(existing).path)]
        )
    }
}
