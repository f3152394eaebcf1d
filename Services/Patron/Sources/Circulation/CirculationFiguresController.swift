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
            guard ServiceToken(adminToken).matches(BasicAuthorization.bearer(request.headers[.authorization])) else {
                throw Problem.unauthorized("The admin token is required (Authorization: Bearer <ADMIN_TOKEN>)")
            }
            return try JSONMessages.response(try await circulation.figures(logger: context.logger), headers: [.cacheControl: "no-store"])
        }
    }
}
