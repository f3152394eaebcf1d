import Crypto
import Foundation

/// A patron as reports name them: the same pseudonym for the same patron across reports (so staff can count distinct
/// borrowers), which cannot be turned back into the patron without the key (HMAC-SHA256 under a key derived from
/// `JWT_SECRET`, the first 12 bytes in hex).
struct ReportPseudonym: Sendable {
    private let key: SymmetricKey

    init(secret: String) {
        key = SymmetricKey(data: SHA256.hash(data: Data(("bookmobile report pseudonyms:" + secret).utf8)))
    }

    func name(_ patronID: UUID?) -> String {
        guard let patronID else { return "" }
        let mac = HMAC<SHA256>.authenticationCode(for: Data(patronID.uuidString.lowercased().utf8), using: key)
        return Data(mac).prefix(12).map { String(format: "%02x", $0) }.joined()
    }
}
