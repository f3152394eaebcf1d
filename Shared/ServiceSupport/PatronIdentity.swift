import Crypto
import Foundation
import Shared

/// The gateway's signature on the patron it vouches for (`X-Patron-Signature` beside `X-Patron-ID`): an HMAC over the
/// patron id and an expiry a minute away, with a key derived from `JWT_SECRET` (HKDF, its own purpose) that never
/// leaves the processes. Catalog and patron trust `X-Patron-ID` only with a fresh signature for it (`Caller`), so the
/// service token alone, which travels in every internal request and can leak from a log or a proxy, does not let
/// anyone act as a patron (docs/SECURITY.md, "Threat model in a page").
public struct PatronIdentity: Sendable {
    /// How long a signature holds: the one request it goes with, and a clock a little off between machines.
    public static let lifetime: TimeInterval = 60
    /// The signing key first, then the key of `JWT_PREVIOUS_SECRET` during a rotation.
    let keys: [SymmetricKey]

    public init(secret: String, previousSecret: String? = nil) {
        keys = ([secret] + [previousSecret].compactMap { $0 }).map(Self.key(from:))
    }

    static func key(from secret: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(secret.utf8)),
            info: Data("bookmobile patron identity v1".utf8),
            outputByteCount: 32
        )
    }

    static func message(_ patron: UUID, _ expiry: Int) -> Data { Data("\(patron.lowercased)\n\(expiry)".utf8) }

    /// `expiry.mac` (seconds since 1970, lower-case hex) for `patron`, valid for `lifetime`.
    public func signature(for patron: UUID, now: Date = Date()) -> String {
        let expiry = Int(now.timeIntervalSince1970 + Self.lifetime)
        return "\(expiry)." + Hex.string(HMAC<SHA256>.authenticationCode(for: Self.message(patron, expiry), using: keys[0]))
    }

    /// Whether `signature` is this key's (or the previous key's) for `patron` and has not expired.
    public func verifies(_ signature: String?, for patron: UUID, now: Date = Date()) -> Bool {
        guard let signature, let dot = signature.firstIndex(of: "."), let expiry = Int(signature[..<dot]),
            let mac = Self.bytes(hex: signature[signature.index(after: dot)...])
        else { return false }
        let seconds = now.timeIntervalSince1970
        guard Double(expiry) >= seconds, Double(expiry) <= seconds + Self.lifetime + 5 else { return false }
        let message = Self.message(patron, expiry)
        return keys.contains { HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: message, using: $0) }
    }

    /// The bytes of 64 hexadecimal digits, or nil.
    static func bytes(hex: Substring) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
