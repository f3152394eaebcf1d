import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// `GET /admin/circulation`: the operator console's counts of patrons, loans, holds and offers (admin token).
struct CirculationDashboardController: Sendable {
    let circulation: CirculationPostgresRepository

    /// Registers the route on `admin`, a group behind `AdminTokenMiddleware`.
    func add(to admin: RouterGroup<PatronRequestContext>) {
        admin.get(.circulationDashboard) { request, context in
            try JSONMessages.response(try await circulation.dashboard(logger: context.logger), headers: [.cacheControl: "no-store"])
        }
    }
}
