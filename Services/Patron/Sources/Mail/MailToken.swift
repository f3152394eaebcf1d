import Crypto
import Foundation

/// The signed tokens in mail's links: verifying an address (bound to the address, two days) and unsubscribing from a
/// kind of mail (a year, as a one-click `List-Unsubscribe` link must keep working). HMAC-SHA256 under a key derived
/// from `JWT_SECRET`, so that nothing else the service signs can pass for one.
struct MailToken: Codable, Sendable, Equatable {
    enum Purpose: String, Codable, Sendable {
        case verify
        case unsubscribe
    }

    var purpose: Purpose
    var patron: UUID
    /// The address being verified, or the kind of mail to stop.
    var subject: String
    var expires: Date

    static func verify(patron: UUID, address: String, now: Date = Date()) -> MailToken {
        MailToken(purpose: .verify, patron: patron, subject: address, expires: now.addingTimeInterval(2 * 86_400))
    }

    static func unsubscribe(patron: UUID, kind: String, now: Date = Date()) -> MailToken {
        MailToken(purpose: .unsubscribe, patron: patron, subject: kind, expires: now.addingTimeInterval(365 * 86_400))
    }

    struct Signer: Sendable {
        private let key: SymmetricKey

        init(secret: String) {
            key = SymmetricKey(data: SHA256.hash(data: Data("bookmobile mail links\u{0}\(secret)".utf8)))
        }

        func sign(_ token: MailToken) -> String {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .secondsSince1970
            let body = (try? encoder.encode(token)) ?? Data()
            let signature = Data(HMAC<SHA256>.authenticationCode(for: body, using: key))
            return body.base64URLEncodedString() + "." + signature.base64URLEncodedString()
        }

        /// The token when its signature holds, its purpose is `purpose` and it has not expired.
        func open(_ text: String, as purpose: Purpose, now: Date = Date()) -> MailToken? {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, let body = Data(base64URLEncoded: parts[0]), let signature = Data(base64URLEncoded: parts[1]),
                HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: body, using: key)
            else { return nil }
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            guard let token = try? decoder.decode(MailToken.self, from: body), token.purpose == purpose, token.expires > now else { return nil }
            return token
        }
    }
}
