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
    var createdAt: Date
    var lastLoginAt: Date?
}
