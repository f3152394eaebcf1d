import Foundation
import HTTPTypes
import Hummingbird
import Shared

/// The request id of the request being handled, for outbound internal calls.
public enum RequestID {
    @TaskLocal public static var current: String?

    /// A client-sent id is kept when it is short and printable; otherwise a new one is made.
    public static func accept(_ candidate: String?) -> String {
        if let candidate, (1...128).contains(candidate.count), candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.:".contains($0)) }) {
            return candidate
        }
        return UUID().uuidString.lowercased()
    }
}

extension HTTPField.Name {
    public static let requestID = HTTPField.Name(InternalHeader.requestID)!
    public static let patronID = HTTPField.Name(InternalHeader.patronID)!
    public static let serviceToken = HTTPField.Name(InternalHeader.serviceToken)!
    public static let clientAddress = HTTPField.Name(InternalHeader.clientAddress)!
    public static let sharedETag = HTTPField.Name(InternalHeader.sharedETag)!
    public static let sharedPageUsable = HTTPField.Name(InternalHeader.sharedPageUsable)!
    public static let shelfVersion = HTTPField.Name(InternalHeader.shelfVersion)!
}

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
