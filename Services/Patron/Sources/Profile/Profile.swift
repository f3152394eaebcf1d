import Foundation
import Logging
import PostgresNIO
import ServiceSupport
import Shared

/// A patron's profile as `GET /me` shows it.
struct Profile: Codable, Sendable {
    struct Usage: Codable, Sendable {
        var count: Int
        var limit: Int
    }

    var id: UUID
    var barcode: String
    var barcodeFormat: String
    /// The barcode with Codabar start/stop characters, ready for a barcode renderer.
    var barcodeCodabar: String
    var username: String?
    var email: String?
    var displayName: String
    var bio: String
    var favorites: [UUID]
    var loans: Usage
    var holds: Usage
    var waitingForAction: Int
    var createdAt: Date
    var lastLoginAt: Date?
}

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

    static let mediaType = "application/opds-profile+json"

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
        links = [Link(rel: "http://opds-spec.org/shelf", href: publicURL + "/me/books", type: "application/json")]
    }
}

/// Reads profiles.
struct ProfileQueries: Sendable {
    let client: PostgresClient

    /// The patron's profile in one query, nil for an unknown patron.
    func profile(patronID: UUID, logger: Logger) async throws -> Profile? {
        for try await (barcode, username, email, name, bio, loanLimit, holdLimit, created, lastLogin, loans, holds, favorites, waiting)
            in try await client.execute(ProfileStatement(patronID: patronID), logger: logger)
        {
            return Profile(
                id: patronID, barcode: barcode, barcodeFormat: "Codabar", barcodeCodabar: Barcode.codabar(barcode), username: username, email: email,
                displayName: name, bio: bio, favorites: favorites, loans: .init(count: loans, limit: loanLimit),
                holds: .init(count: holds, limit: holdLimit), waitingForAction: waiting, createdAt: created, lastLoginAt: lastLogin)
        }
        return nil
    }

    /// Prepared once per connection: planning this query took five times as long as running it.
    struct ProfileStatement: PostgresPreparedStatement {
        static let sql = """
            SELECT barcode, username, email, display_name, bio, loan_limit, hold_limit, created_at, last_login_at,
                (SELECT count(*)::int FROM patron_books WHERE patron_id = p.id
                    AND state IN ('not_downloaded', 'download_queued', 'downloading', 'download_failed', 'download_completed', 'opened')),
                (SELECT count(*)::int FROM patron_books WHERE patron_id = p.id AND state IN ('waiting_for_loan', 'loan_offered')),
                (SELECT coalesce(array_agg(book_id ORDER BY created_at), '{}') FROM favorites WHERE patron_id = p.id),
                (SELECT count(*)::int FROM notifications WHERE patron_id = p.id AND read_at IS NULL)
            FROM patrons p WHERE id = $1
            """
        typealias Row = (String, String?, String?, String, String, Int, Int, Date, Date?, Int, Int, [UUID], Int)

        var patronID: UUID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(patronID)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }
}
