import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceSupport
import Shared
import TestSupport

/// Requests to the patron router as the gateway sends them (service token, patron id).
struct PatronTestClient {
    let client: any TestClientProtocol

    struct Reply {
        var status: HTTPResponse.Status
        var body: Data
        var headers: HTTPFields

        func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T { try WireFormat.decoder().decode(T.self, from: body) }
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
    }

    @discardableResult
    func call(
        _ method: HTTPRequest.Method,
        _ uri: String,
        patron: UUID? = nil,
        json: String? = nil,
        body: String? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> Reply {
        var headers: HTTPFields = [.serviceToken: TestConfig.serviceToken]
        if let patron {
            headers[.patronID] = patron.uuidString.lowercased()
            headers[.patronSignature] = PatronIdentity(secret: TestConfig.jwtSecret).signature(for: patron)
        }
        if json != nil { headers[.contentType] = "application/json" }
        for field in extra { headers[field.name] = field.value }
        return try await client.execute(uri: uri, method: method, headers: headers, body: (json ?? body).map { ByteBuffer(string: $0) }) { response in
            Reply(status: response.status, body: Data(buffer: response.body), headers: response.headers)
        }
    }

    /// Signs up a PIN patron and returns its id.
    func newPatron() async throws -> UUID {
        let reply = try await call(.post, "/auth/signup", json: #"{"pin": "1234"}"#)
        guard reply.status == .created, let patron = reply.json["patron"] as? [String: Any],
            let id = (patron["id"] as? String).flatMap({ UUID(uuidString: $0) })
        else { throw TestFailure("signup failed: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))") }
        return id
    }

    /// Registers a book's licence as catalog would.
    func license(
        _ book: UUID,
        copies: Int,
        openAccess: Bool = false,
        version: Int64 = 1,
        hasCover: Bool = true,
        koreaderDigest: String? = nil,
        audience: BookAudience? = nil
    ) async throws {
        let license = License(
            bookId: book,
            copies: copies,
            openAccess: openAccess,
            withdrawn: false,
            title: "Book",
            authors: ["A. Writer"],
            version: version,
            hasCover: hasCover,
            koreaderDigest: koreaderDigest,
            audience: audience
        )
        let body = String(decoding: try WireFormat.encode(license), as: UTF8.self)
        let reply = try await call(.put, "/internal/licenses/\(book.uuidString.lowercased())", json: body)
        guard reply.status == .noContent else { throw TestFailure("licence refused: \(reply.status)") }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
