import Hummingbird

/// Announces every write request that succeeded (any method but GET and HEAD: ingest, the operator's edits, patron's
/// internal updates) to the catalog replicas before it is answered, so that a read after it is never answered by a
/// PostgreSQL replica that has not replayed it (`ReadReplicas`).
struct WritesAnnouncedMiddleware<Context: RequestContext>: RouterMiddleware {
    let replicas: ReadReplicas

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        if request.method != .get, request.method != .head, response.status.code < 400 {
            await replicas.announceWrite(logger: context.logger)
        }
        return response
    }
}
