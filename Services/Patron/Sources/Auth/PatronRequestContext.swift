import Foundation
import Hummingbird

/// The request context of every patron route. `vouchedPatronID` is set by `VouchedPatronMiddleware` on the `/me`
/// routes: the patron the gateway vouched for, who still exists.
struct PatronRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    var vouchedPatronID: UUID?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        vouchedPatronID = nil
    }
}
