import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// `GET /admin/circulation`: the operator console's counts of patrons, loans, holds and offers (admin token).
struct CirculationFiguresController: Sendable {
    let circulation: CirculationPostgresRepository
    let adminToken: String

    func add(to router: Router<BasicRequestContext>) {
        router.get("/admin/circulation") { request, context in
            try ServiceToken(adminToken).requireAdmin(request)
            return try JSONMessages.response(try await circulation.figures(logger: context.logger), headers: [.cacheControl: "no-store"])
        }
    }
}
