import Foundation
import Hummingbird
import Logging
import ServiceSupport

/// After a patron's successful change (any non-GET request the gateway vouched for) that touched their shelf, stamps
/// the answer with a shelf version (`X-Internal-Shelf-Version`) for the gateway to pass on to catalog: catalog, whose
/// copy is older than that, reads the shelf from patron once (read-your-writes: the next page shows the change), and
/// `ShelfPublisher` publishes it soon after. A change thus costs one statement more, not a publication; a circulation
/// change draws its stamp in its own write (`CirculationPostgresRepository.InsertRow`) and so not even that.
/// A failure is logged and left to `ShelfPublisher`'s passes; the change itself stands.
struct ShelfPublishMiddleware<Context: RequestContext>: RouterMiddleware {
    let publisher: ShelfPublisher
    let token: ServiceToken

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        guard ![.get, .head, .options].contains(request.method), response.status.code < 400,
            let patronID = Caller(request: request, token: token).patronID
        else { return response }
        if response.headers[.shelfVersion] != nil {
            publisher.passSoon()
            return response
        }
        do {
            if let version = try await publisher.shelves.stamp(patronID: patronID, logger: context.logger) {
                response.headers[.shelfVersion] = String(version)
                publisher.passSoon()
            }
        } catch {
            context.logger.warning("Shelf not published yet; a later pass will", metadata: ["error": "\(String(reflecting: error))"])
        }
        return response
    }
}
