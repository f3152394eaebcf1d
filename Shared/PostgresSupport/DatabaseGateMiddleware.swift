import Hummingbird
import ServiceSupport
import Shared

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

/// A service's router whose requests under way when the database goes away are answered 503 with `Retry-After` if
/// they have not finished soon after (`DatabaseWatch.cutOffAtOutage`): wrapped around the whole router, because a
/// middleware's `next` cannot be left behind in a task of its own, and such a request may wait forever.
public struct DatabaseOutageCutOff<Inner: HTTPResponderBuilder>: HTTPResponderBuilder where Inner.Responder.Context: Sendable {
    let inner: Inner
    let watch: DatabaseWatch?

    public init(_ inner: Inner, watch: DatabaseWatch?) {
        self.inner = inner
        self.watch = watch
    }

    public struct Responder: HTTPResponder {
        let inner: Inner.Responder
        let watch: DatabaseWatch?

        public func respond(to request: Request, context: Inner.Responder.Context) async throws -> Response {
            guard let watch, !request.uri.path.hasPrefix("/health/"), request.uri.path != "/metrics" else {
                return try await inner.respond(to: request, context: context)
            }
            let inner = self.inner
            do {
                return try await watch.cutOffAtOutage { try await inner.respond(to: request, context: context) }
            } catch let problem as Problem where problem == DatabaseErrorProblem.unavailable {
                return problem.response()
            }
        }
    }

    public func buildResponder() -> Responder { Responder(inner: inner.buildResponder(), watch: watch) }
}
