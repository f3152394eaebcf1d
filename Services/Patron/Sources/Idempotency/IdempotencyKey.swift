import Crypto
import Foundation
import HTTPTypes
import ServiceSupport
import Shared

/// The `Idempotency-Key` request header (draft-ietf-httpapi-idempotency-key-header): a string the client makes
/// unique per write and sends again with each retry of that write.
struct IdempotencyKey: Equatable {
    let value: String

    static let field = HTTPField.Name("Idempotency-Key")!
    static let replayedField = HTTPField.Name("Idempotent-Replayed")!

    /// The header's value: a Structured Field string (`"…"`, as the draft says) or, as many clients send it, the bare
    /// text; 1 to 255 visible ASCII characters. A 400 problem otherwise.
    init(header: String) throws {
        var text = header.trimmingCharacters(in: .whitespaces)
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
        guard (1...255).contains(text.utf8.count), text.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "\"") })
        else {
            throw Problem(
                status: 400,
                slug: "idempotency-key-invalid",
                title: "Bad request",
                detail: "Idempotency-Key must be a string of 1 to 255 visible ASCII characters"
            )
        }
        value = text
    }

    /// What makes a retry the same request: method, path with query, and body.
    static func fingerprint(method: HTTPRequest.Method, path: String, body: some Sequence<UInt8>) -> [UInt8] {
        var hash = SHA256()
        hash.update(data: Array("\(method.rawValue) \(path)\n".utf8))
        hash.update(data: Array(body))
        return Array(hash.finalize())
    }
}

/// Why a request with an `Idempotency-Key` was not carried out.
enum IdempotencyError: Error, ProblemConvertible {
    /// The key came with another request before (another method, path or body).
    case reused
    /// A request with this key is being carried out.
    case inFlight
    /// The request with this key was carried out, but its answer could not be kept.
    case answerLost

    var problem: Problem {
        switch self {
        case .reused:
            Problem(
                status: 422,
                slug: "idempotency-key-reused",
                title: "Unprocessable content",
                detail: "This Idempotency-Key was sent with another request; make a new key for each write"
            )
        case .inFlight:
            Problem(
                status: 409,
                slug: "idempotency-key-in-flight",
                title: "Conflict",
                detail: "A request with this Idempotency-Key is being carried out; try again shortly",
                retryAfter: 1
            )
        case .answerLost:
            Problem(
                status: 409,
                slug: "idempotency-key-answer-lost",
                title: "Conflict",
                detail: "The request with this Idempotency-Key was carried out, but its answer was lost; read the resource to see its state"
            )
        }
    }
}
