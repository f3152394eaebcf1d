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
    /// adult, teen or child (from the library's ILS, or staff): what the library lends them.
    var patronType: PatronType
    /// How the patron signs in: `local` (a PIN or password kept here), `sip2` (the library's ILS checks the PIN) or
    /// `oidc` (the library's identity provider; no PIN, and sync keys are made through the provider).
    var signIn: String
    var createdAt: Date
    var lastLoginAt: Date?
}
