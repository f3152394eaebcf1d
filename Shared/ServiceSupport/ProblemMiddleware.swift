import Foundation
import Hummingbird
import NIOCore
import Shared

/// Turns every error into an RFC 9457 problem document: domain errors by their `problem`, Hummingbird's
/// `HTTPError` (unknown route, oversized body) by its status, and anything else into a 500 that says nothing about
/// internals; every 5xx is logged with the request id.
public struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any ProblemConvertible {
            let problem = error.problem
            // A 5xx that says when to come back (a full queue, a dependency away) is an expected answer, counted by
            // the metrics of whatever refused; any other is a fault worth an error line.
            if problem.status >= 500, problem.retryAfter == nil {
                context.logger.error("Server error", metadata: ["status": "\(problem.status)", "error": "\(String(reflecting: error))"])
            }
            if let detailed = error as? any LoggedDetail {
                context.logger.warning("Refused", metadata: ["status": "\(problem.status)", "detail": "\(detailed.loggedDetail)"])
            }
            return problem.response()
        } catch let error as HTTPError {
            let status = Int(error.status.code)
            var headers = error.headers
            headers[.contentLength] = nil
            let problem = Problem(
                status: status,
                slug: status == 404 ? "not-found" : nil,
                title: error.status.reasonPhrase,
                detail: error.body ?? (status == 404 ? "No resource at \(request.uri.path)" : nil)
            )
            return problem.response(headers: headers)
        } catch let error as any HTTPResponseError {
            let problem = Problem(status: Int(error.status.code), slug: nil, title: error.status.reasonPhrase)
            return problem.response()
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            context.logger.error("Unhandled error", metadata: ["error": "\(String(reflecting: error))"])
            return Problem.internalError.response()
        }
    }
}
