import Hummingbird
import ServiceSupport

/// While the database does not answer (`DatabaseWatch`), every request but the health and metrics routes gets the
/// 503 problem with `Retry-After` at once, instead of waiting for a connection that cannot come.
public struct DatabaseGateMiddleware<Context: RequestContext>: RouterMiddleware {
    let watch: DatabaseWatch

    public init(watch: DatabaseWatch) { self.watch = watch }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !watch.isAnswering, !request.uri.path.hasPrefix("/health/"), request.uri.path != "/metrics" else {
            return try await next(request, context)
        }
        // Answered, not thrown: the watch logged the database's going once; a thrown problem would log each request.
        return DatabaseErrorProblem.unavailable.response()
    }
}
