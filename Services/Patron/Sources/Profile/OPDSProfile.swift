import Foundation
import Logging
import PostgresNIO
import ServiceSupport
import Shared

/// The OPDS User Profile 1.0 form of the profile (`Accept: application/opds-profile+json`).
struct OPDSProfile: Encodable, Sendable {
    struct Allowance: Encodable, Sendable {
        var total: Int
        var available: Int
    }

    struct Link: Encodable, Sendable {
        var rel: String
        var href: String
        var type: String
    }

    static let mediaType = MediaType.opdsProfile

    var name: String
    var email: String?
    var loans: Allowance
    var holds: Allowance
    var links: [Link]

    init(_ profile: Profile, publicURL: String) {
        name = profile.displayName.isEmpty ? profile.barcode : profile.displayName
        email = profile.email
        loans = Allowance(total: profile.loans.limit, available: max(0, profile.loans.limit - profile.loans.count))
        holds = Allowance(total: profile.holds.limit, available: max(0, profile.holds.limit - profile.holds.count))
        links = [Link(rel: "http://opds-spec.org/shelf", href: PublicRoute.myBooks.url(publicURL), type: MediaType.json)]
    }
}
