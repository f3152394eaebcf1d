import Hummingbird
import ServiceSupport

/// Puts the patron the gateway vouched for (service token, patron header and its signature) into the context. Catalog
/// keeps no accounts: a deleted patron's requests find no shelf and no lists.
struct CallerMiddleware: RouterMiddleware {
    let token: ServiceToken

    func handle(
        _ request: Request,
        context: CatalogRequestContext,
        next: (Request, CatalogRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.patronID = Caller(request: request, token: token).patronID
        return try await next(request, context)
    }
}
