import Foundation
import ServiceSupport
import Shared

/// How often a patron may change their email address: each change mails a confirmation link, so the limits bound the
/// mail one account can send, to any address (`EMAIL_CHANGES_PER_DAY`, 5) and to one address from every account
/// together (`EMAIL_VERIFICATIONS_PER_ADDRESS`, 3 a day). What a change answers says nothing of other accounts.
struct EmailChangeLimits: Sendable {
    var perPatron: Int
    var perAddress: Int

    struct Reached: ProblemConvertible {
        var problem: Problem {
            Problem(
                status: 429,
                slug: "too-many-email-changes",
                title: "Too many requests",
                detail: "The email address was changed too often today, or that address was sent too many confirmations; try again tomorrow",
                retryAfter: 3_600
            )
        }
    }
}
