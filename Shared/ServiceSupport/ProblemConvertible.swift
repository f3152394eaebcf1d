import Foundation
import Hummingbird
import NIOCore
import Shared

/// An error that knows the problem document to answer with. Domain errors of the services conform.
public protocol ProblemConvertible: Error {
    var problem: Problem { get }
}

/// An error whose detail is for the service's log only, never for the client (`ProblemMiddleware` logs it).
public protocol LoggedDetail: Error {
    var loggedDetail: String { get }
}

extension Problem: ProblemConvertible {
    public var problem: Problem { self }
}

extension Problem {
    /// The problem as an `application/problem+json` response.
    public func response(headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.contentType] = Problem.mediaType
        if let retryAfter { headers[.retryAfter] = "\(retryAfter)" }
        let data = (try? WireFormat.encode(self)) ?? Data()
        return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
