import Foundation
import Hummingbird

/// The request context of every catalog route: the signed-in patron the gateway vouched for, if any, read once by
/// `CallerMiddleware` (feeds are personal for a patron and the same for everyone else).
struct CatalogRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    var patronID: UUID?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        patronID = nil
    }
}
