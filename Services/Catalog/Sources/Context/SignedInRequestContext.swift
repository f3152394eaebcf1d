import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// The context of routes that only a signed-in patron has (`/opds/shelf`, `/me/lists`): built from catalog's context,
/// a 401 problem document without a patron, so the handler never checks.
struct SignedInRequestContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let patronID: UUID

    init(context: CatalogRequestContext) throws {
        guard let patronID = context.patronID else { throw Problem.unauthorized("Sign in to see your own books and lists") }
        self.coreContext = context.coreContext
        self.patronID = patronID
    }
}
