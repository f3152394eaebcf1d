import Foundation
import HTTPTypes
import Hummingbird
import Shared

/// Gives every request an `X-Request-ID` (the client's, or a new one), puts it in the logger's metadata as
/// `request.id`, makes it the task-local `RequestID.current` and echoes it on the response.
public struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let id = RequestID.accept(request.headers[.requestID])
        var context = context
        context.logger[metadataKey: "request.id"] = "\(id)"
        context.logger[metadataKey: "hb.request.id"] = nil
        var response = try await RequestID.$current.withValue(id) { try await next(request, context) }
        response.headers[.requestID] = id
        return response
    }
}
