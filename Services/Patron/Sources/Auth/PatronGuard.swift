import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceSupport

/// Finds the signed-in patron of a `/me` request: the id the gateway vouched for, of a patron that still exists.
struct PatronGuard: Sendable {
    let token: ServiceToken
    let client: PostgresClient

    /// The patron's id; throws `AuthenticationRequired` (401 with the auth document) when there is none.
    func require(_ request: Request, logger: Logger) async throws -> UUID {
        guard let id = Caller(request: request, token: token).patronID else { throw AuthenticationRequired() }
        let rows = try await client.query("SELECT 1 FROM patrons WHERE id = \(id)", logger: logger)
        for try await _ in rows { return id }
        throw AuthenticationRequired()
    }
}

/// Answers `AuthenticationRequired` with 401, `WWW-Authenticate: Basic` and the auth document as the body.
struct AuthenticationRequiredMiddleware<Context: RequestContext>: RouterMiddleware {
    let document: AuthDocument

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch is AuthenticationRequired {
            return try document.response(status: .unauthorized)
        }
    }
}
