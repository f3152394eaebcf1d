import Crypto
import Foundation
import Shared

/// AWS Signature Version 4 as S3-compatible object storage checks it: the `Authorization` header of a request, or the
/// query of a presigned URL. Pure: the caller gives the clock. Checked against the examples of AWS's S3 documentation
/// (`SigV4SignerTests`).
struct SigV4Signer: Sendable {
    let accessKeyID: String
    let secretAccessKey: String
    let region: String
    var service = "s3"

    /// The hash of an empty body, and the payload hash of a request whose body is not signed (presigned URLs).
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// A request to sign: `path` as it is sent (each segment already percent-encoded), the query's items unencoded.
    struct Request {
        var method: String
        var host: String
        var path: String
        var query: [(name: String, value: String)] = []
        /// Headers to sign besides `host`, `x-amz-date` and `x-amz-content-sha256`.
        var headers: [(name: String, value: String)] = []
        var payloadHash = SigV4Signer.emptyPayloadHash
    }

    /// The headers to send with `request`: `x-amz-date`, `x-amz-content-sha256` and `Authorization`.
    func headers(for request: Request, at date: Date) -> [(name: String, value: String)] {
        let time = Self.timestamp(date)
        let headers = request.headers + [("host", request.host), ("x-amz-date", time), ("x-amz-content-sha256", request.payloadHash)]
        let (signedHeaders, signature) = sign(request, headers: headers, query: request.query, payloadHash: request.payloadHash, time: time)
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(accessKeyID)/\(scope(time)),SignedHeaders=\(signedHeaders),Signature=\(signature)"
        return [("x-amz-date", time), ("x-amz-content-sha256", request.payloadHash), ("Authorization", authorization)]
    }

    /// A URL that allows `request` (its method, path and query, with no other header than `host`) for `expires`
    /// seconds from `date`, to anyone who holds it.
    func presignedURL(for request: Request, scheme: String = "https", expires: Int, at date: Date) -> String {
        let time = Self.timestamp(date)
        let query =
            request.query + [
                ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"), ("X-Amz-Credential", "\(accessKeyID)/\(scope(time))"), ("X-Amz-Date", time),
                ("X-Amz-Expires", String(expires)), ("X-Amz-SignedHeaders", "host"),
            ]
        let (_, signature) = sign(request, headers: [("host", request.host)], query: query, payloadHash: Self.unsignedPayload, time: time)
        return "\(scheme)://\(request.host)\(request.path)?\(Self.canonicalQuery(query))&X-Amz-Signature=\(signature)"
    }

    /// The signed headers' names and the signature.
    private func sign(
        _ request: Request,
        headers: [(name: String, value: String)],
        query: [(name: String, value: String)],
        payloadHash: String,
        time: String
    ) -> (signedHeaders: String, signature: String) {
        let canonicalHeaders = headers.map { ($0.name.lowercased(), $0.value.trimmingCharacters(in: .whitespaces)) }.sorted { $0.0 < $1.0 }
        let signedHeaders = canonicalHeaders.map(\.0).joined(separator: ";")
        let canonicalRequest = [
            request.method, request.path, Self.canonicalQuery(query), canonicalHeaders.map { "\($0.0):\($0.1)\n" }.joined(), signedHeaders,
            payloadHash,
        ].joined(separator: "\n")
        let stringToSign = [
            "AWS4-HMAC-SHA256", time, scope(time), Hex.string(SHA256.hash(data: Data(canonicalRequest.utf8))),
        ].joined(separator: "\n")
        return (
            signedHeaders, Hex.string(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: signingKey(day: String(time.prefix(8)))))
        )
    }

    /// `yyyymmdd/region/service/aws4_request`.
    private func scope(_ time: String) -> String { "\(time.prefix(8))/\(region)/\(service)/aws4_request" }

    private func signingKey(day: String) -> SymmetricKey {
        var key = SymmetricKey(data: Data("AWS4\(secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return key
    }

    /// The query's items percent-encoded and sorted by name, then value.
    static func canonicalQuery(_ items: [(name: String, value: String)]) -> String {
        let encoded: [(String, String)] = items.map { (encode($0.name), encode($0.value)) }
        let sorted = encoded.sorted { (a: (String, String), b: (String, String)) -> Bool in a.0 == b.0 ? a.1 < b.1 : a.0 < b.0 }
        return sorted.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// RFC 3986 percent-encoding as SigV4 wants it: every byte but the unreserved characters, upper-case hex.
    static func encode(_ text: String) -> String { PercentEncoding.encode(text, keeping: .unreserved) }

    /// An object key as a path: each segment percent-encoded, the slashes kept.
    static func path(bucket: String?, key: String) -> String {
        "/"
            + ((bucket.map { [$0] } ?? []) + key.split(separator: "/", omittingEmptySubsequences: false).map(String.init)).map(encode)
            .joined(separator: "/")
    }

    /// `yyyymmddThhmmssZ` in UTC.
    static func timestamp(_ date: Date) -> String {
        let text = WireFormat.formatDate(date)  // 2013-05-24T00:00:00.000Z
        let day = text.prefix(10).replacingOccurrences(of: "-", with: "")
        let time = text.dropFirst(11).prefix(8).replacingOccurrences(of: ":", with: "")
        return day + "T" + time + "Z"
    }
}
