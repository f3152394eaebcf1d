import Crypto
import Foundation
import Hummingbird
import Shared

/// The shared secret that proves a request comes from another Bookmobile process.
public struct ServiceToken: Sendable {
    public let value: String

    public init(_ value: String) { self.value = value }

    /// Constant-time comparison with the token a request carries.
    public func matches(_ candidate: String?) -> Bool {
        guard let candidate else { return false }
        let a = Array(SHA256.hash(data: Data(value.utf8)))
        let b = Array(SHA256.hash(data: Data(candidate.utf8)))
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Refuses (401) a request that does not carry this token as `Authorization: Bearer`: the operators' routes.
    public func requireAdmin(_ request: Request) throws {
        guard matches(BasicAuthorization.bearer(request.headers[.authorization])) else {
            throw Problem.unauthorized("The admin token is required (Authorization: Bearer <ADMIN_TOKEN>)")
        }
    }
}

/// Refuses (401) every request that does not carry the service token. Mount it on `/internal` routes.
public struct ServiceTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: ServiceToken

    public init(token: ServiceToken) { self.token = token }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard token.matches(request.headers[.serviceToken]) else {
            throw Problem(status: 401, slug: "service-token-required", title: "Unauthorized", detail: "Internal routes need the service token")
        }
        return try await next(request, context)
    }
}

/// Who is asking, as the gateway vouched for it: the patron id and the client address are trusted only when the
/// request also carries the service token.
public struct Caller: Sendable {
    public let patronID: UUID?
    public let clientAddress: String?

    public init(request: Request, token: ServiceToken) {
        if token.matches(request.headers[.serviceToken]) {
            patronID = request.headers[.patronID].flatMap(UUID.init(uuidString:))
            clientAddress = request.headers[.clientAddress]
        } else {
            patronID = nil
            clientAddress = nil
        }
    }
}
