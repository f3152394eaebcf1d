import Foundation
import Shared
import ServiceSupport

/// Why authentication failed. Says nothing about whether a login exists.
enum AuthError: ProblemConvertible, Equatable {
    case badCredentials
    case throttled(retryAfter: Int)
    case invalidRefreshToken
    case refreshTokenReused
    case taken(field: String)

    var problem: Problem {
        switch self {
        case .badCredentials:
            Problem(status: 401, slug: "invalid-credentials", title: "Unauthorized", detail: "The login or the PIN/password is wrong")
        case .throttled(let seconds):
            Problem(
                status: 429, slug: "too-many-attempts", title: "Too many requests",
                detail: "Too many failed sign-in attempts; this login is locked for \(seconds) seconds", retryAfter: seconds)
        case .invalidRefreshToken:
            Problem(status: 401, slug: "invalid-refresh-token", title: "Unauthorized", detail: "The refresh token is unknown, expired or revoked")
        case .refreshTokenReused:
            Problem(
                status: 401, slug: "refresh-token-reused", title: "Unauthorized",
                detail: "This refresh token was already used; the session has been revoked, sign in again")
        case .taken(let field):
            Problem.conflict("\(field)-taken", "That \(field) is already registered")
        }
    }
}
