import Crypto
import Foundation
import Shared

/// A patron's KOReader sync key, as listed (the key itself is shown once, when made, and kept only hashed).
struct SyncKey: Codable, Sendable {
    var id: UUID
    /// What KOReader's "username" must be: made with the key, so that no patron's name or card number reaches the
    /// device or the sync requests.
    var username: String
    var device: String
    var createdAt: Date
    var lastUsedAt: Date?
}

/// A sync key just made: the only answer that carries `key`, what KOReader's "password" must be.
struct NewSyncKey: Codable, Sendable {
    var id: UUID
    var username: String
    var key: String
    var device: String
    var createdAt: Date
}

/// The secrets of sync keys: user names and keys drawn at random from letters and digits that cannot be mistaken for
/// one another when typed on an e-reader's keyboard, and the hash kept of a key.
enum SyncKeySecret {
    static let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
    /// 16 of 31 symbols: 79 bits, beyond guessing whatever the rate.
    static let keyLength = 16
    static let usernameLength = 10

    static func random(_ length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// KOReader sends the MD5 of the password (lower-case hex), never the password: the key is known to the server
    /// only as the SHA-256 of that.
    static func hash(sentKey: String) -> [UInt8] { Array(SHA256.hash(data: Data(sentKey.lowercased().utf8))) }

    /// What KOReader sends for `key` (its `x-auth-key`).
    static func sent(_ key: String) -> String { Hex.string(Insecure.MD5.hash(data: Data(key.utf8))) }
}
