import Hummingbird
import ServiceSupport

/// Puts the patron the gateway vouched for (service token and patron header) into the context. A change (any method
/// but GET and HEAD) also needs the patron to exist: a gateway can still hold the token of an account deleted a moment
/// ago, and its writes must find nobody. A read needs no extra query: a deleted account's rows are gone with it, so it
/// finds nothing (and `GET /me` answers 401 from its own query).
struct VouchedPatronMiddleware: RouterMiddleware {
    let token: ServiceToken
    let accounts: AccountPostgresRepository
    /// True for routes whose every change locks the patron's row in its own transaction and answers 401 when there is
    /// none (circulation: `CirculationPostgresRepository.LockPatronAndRow`): the query here would only repeat it.
    var changesFindThePatronThemselves = false

    func handle(
        _ request: Request,
        context: PatronRequestContext,
        next: (Request, PatronRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        if let patronID = Caller(request: request, token: token).patronID {
            let reads = request.method == .get || request.method == .head
            if reads || changesFindThePatronThemselves {
                context.vouchedPatronID = patronID
            } else if try await accounts.exists(patronID: patronID, logger: context.logger) {
                context.vouchedPatronID = patronID
            }
        }
        return try await next(request, context)
    }
}
