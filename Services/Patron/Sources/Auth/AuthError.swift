import Foundation
import ServiceSupport
import Shared

/// Why authentication failed. Says nothing about whether a login exists.
enum AuthError: ProblemConvertible, Equatable {
    case badCredentials
    case throttled(scope: SignInThrottlePolicy.Scope, until: Date, retryAfter: Int)
    case invalidRefreshToken
    case refreshTokenReused
    case taken(field: String)

    var problem: Problem {
        switch self {
        case .badCredentials:
            Problem(status: 401, slug: "invalid-credentials", title: "Unauthorized", detail: "The login or the PIN/password is wrong")
        case .throttled(let scope, let until, let seconds):
            Problem(
                status: 429,
                slug: "too-many-attempts",
                title: "Too many requests",
                detail: Self.throttleDetail(scope, seconds),
                retryAfter: seconds,
                throttled: scope.rawValue,
                throttledUntil: WireFormat.formatDate(until)
            )
        case .invalidRefreshToken:
            Problem(status: 401, slug: "invalid-refresh-token", title: "Unauthorized", detail: "The refresh token is unknown, expired or revoked")
        case .refreshTokenReused:
            Problem(
                status: 401,
                slug: "refresh-token-reused",
                title: "Unauthorized",
                detail: "This refresh token was already used; the session has been revoked, sign in again"
            )
        case .taken(let field):
            Problem.conflict("\(field)-taken", "That \(field) is already registered")
        }
    }

    private static func throttleDetail(_ scope: SignInThrottlePolicy.Scope, _ seconds: Int) -> String {
        switch scope {
        case .login: "Too many failed sign-ins for this login from elsewhere; from an address it has not signed in from, try again in \(seconds) s"
        case .loginAtAddress: "Too many failed sign-ins for this login from this address; try again in \(seconds) s"
        case .address: "Too many failed sign-ins from this address; this login gets no further try from here for \(seconds) s"
        }
    }
}
