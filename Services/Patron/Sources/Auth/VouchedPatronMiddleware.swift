import Hummingbird
import ServiceSupport

/// Puts the patron the gateway vouched for (service token and patron header) into the context, if that patron
/// still exists: a token of a deleted account, still cached by a gateway, finds nobody.
struct VouchedPatronMiddleware: RouterMiddleware {
    let token: ServiceToken
    let accounts: AccountPostgresRepository

    func handle(
        _ request: Request,
        context: PatronRequestContext,
        next: (Request, PatronRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        if let patronID = Caller(request: request, token: token).patronID,
            try await accounts.exists(patronID: patronID, logger: context.logger)
        {
            context.vouchedPatronID = patronID
        }
        return try await next(request, context)
    }
}
