import Foundation
import Hummingbird

/// The context of a `/me` route: it exists only for a signed-in patron (otherwise `AuthenticationRequired`, a 401
/// with the authentication document), so handlers read `patronID` without checking.
struct SignedInRequestContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let patronID: UUID

    init(context: PatronRequestContext) throws {
        guard let patronID = context.vouchedPatronID else { throw AuthenticationRequired() }
        self.coreContext = context.coreContext
        self.patronID = patronID
    }
}
