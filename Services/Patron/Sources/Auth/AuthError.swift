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
    /// The library's ILS cannot be reached to check a card and PIN (SIP2).
    case ilsUnavailable(retryAfter: Int)
    /// The ILS vouches for a card number that is a local account's barcode: never taken over.
    case cardHeldLocally
    /// The patron's PIN is the ILS's: changed at the library, not here.
    case secretHeldByILS
    /// Sign-up is off: patrons sign in with what the library issued (`PATRON_AUTH`).
    case signUpOff
    /// The library's identity provider cannot be reached (OpenID Connect).
    case identityProviderUnavailable(retryAfter: Int)
    /// A sign-in through the identity provider did not complete: its state is unknown or used, the provider refused
    /// the code, or its token could not be trusted. Says why in general terms only.
    case singleSignOnFailed(String)

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
        case .ilsUnavailable(let seconds):
            Problem(
                status: 503,
                slug: "ils-unavailable",
                title: "Service unavailable",
                detail: "The library's system cannot check cards right now; try again in \(seconds) s",
                retryAfter: seconds
            )
        case .cardHeldLocally:
            Problem.conflict("card-held-locally", "This card number belongs to an account made here; ask the library to merge them")
        case .secretHeldByILS:
            Problem.conflict("pin-held-by-ils", "This card's PIN is kept by the library's system: change it with the library")
        case .signUpOff:
            Problem(
                status: 403,
                slug: "sign-up-off",
                title: "Forbidden",
                detail: "Sign in with the card the library gave you: this library takes no sign-ups here"
            )
        case .identityProviderUnavailable(let seconds):
            Problem(
                status: 503,
                slug: "identity-provider-unavailable",
                title: "Service unavailable",
                detail: "The library's sign-in service cannot be reached right now; try again in \(seconds) s",
                retryAfter: seconds
            )
        case .singleSignOnFailed(let detail):
            Problem(status: 400, slug: "single-sign-on-failed", title: "Bad request", detail: detail + "; start the sign-in again")
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
