import Crypto
import Foundation

/// A patron as one export names them: the same pseudonym throughout the export, so staff can count distinct borrowers,
/// and another in every other export, so the rows of two exports cannot be joined on it. The key (HMAC-SHA256, the
/// first 12 bytes in hex) is drawn for the export and forgotten with it: nobody, staff included, can turn a pseudonym
/// back into the patron.
struct ReportPseudonym: Sendable {
    private let key = SymmetricKey(size: .bits256)

    func name(_ patronID: UUID?) -> String {
        guard let patronID else { return "" }
        let mac = HMAC<SHA256>.authenticationCode(for: Data(patronID.uuidString.lowercased().utf8), using: key)
        return Data(mac).prefix(12).map { String(format: "%02x", $0) }.joined()
    }
}
