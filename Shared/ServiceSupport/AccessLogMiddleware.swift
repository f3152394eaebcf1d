import Hummingbird

/// Logs one line per finished request at `info`: method, path (without the query, which may hold a patron's
/// search), status and duration. The logger already carries `request.id` from `RequestIDMiddleware`.
public struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        context.logger.info(
            "request",
            metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(response.status.code)",
                "ms": "\((milliseconds * 10).rounded() / 10)",
            ]
        )
        return response
    }
}
