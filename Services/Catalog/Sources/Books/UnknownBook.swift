import Foundation
import ServiceSupport
import Shared

/// No book with this id, or one withdrawn: every route that names a book answers 404.
struct UnknownBook: ProblemConvertible, Equatable {
    var id: UUID

    var problem: Problem { Problem.notFound("No book \(id)") }
}
