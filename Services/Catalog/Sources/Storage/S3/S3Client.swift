import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceSupport
import Shared

/// The S3 API calls the blob store makes, signed with SigV4 (`SigV4Signer`) and sent with AsyncHTTPClient: objects
/// (PUT, GET with ranges, HEAD, DELETE), ListObjectsV2, multipart uploads and presigned GET URLs. Any failure of the
/// store (unreachable, an error status, an S3 error document) is thrown as a 503 problem with `Retry-After` that says
/// what the store answered; expected absences (a 404 on HEAD or GET) are answers, not errors.
struct S3Client: Sendable {
    let location: S3Location
    let signer: SigV4Signer
    let http: HTTPClient
    var timeout: TimeAmount = .seconds(120)

    init(location: S3Location, http: HTTPClient = .service) {
        self.location = location
        self.http = http
        signer = SigV4Signer(accessKeyID: location.accessKeyID, secretAccessKey: location.secretAccessKey, region: location.region)
    }

    /// The host requests go to: the bucket's own host unless path-style.
    private var host: String { location.pathStyle ? location.endpointHost : "\(location.bucket).\(location.endpointHost)" }

    /// The request path of `key` (the bucket's when nil).
    private func path(_ key: String?) -> String {
        let bucket = location.pathStyle ? location.bucket : nil
        guard let key else { return bucket.map { "/" + SigV4Signer.encode($0) } ?? "/" }
        return SigV4Signer.path(bucket: bucket, key: key)
    }

    // MARK: Objects

    /// Stores `body` under `key`; `sha256` (hex) is its payload hash, which the store checks against the bytes.
    func put(_ key: String, body: ByteBuffer, sha256: String, logger: Logger) async throws {
        let response = try await send("PUT", key, body: body, payloadHash: sha256, logger: logger)
        try await expect(response, [200], "PUT \(key)")
    }

    /// The object's size, or nil when there is none.
    func head(_ key: String, logger: Logger) async throws -> Int? {
        let response = try await send("HEAD", key, logger: logger)
        if response.status == .notFound { return nil }
        try await expect(response, [200], "HEAD \(key)")
        return response.headers.first(name: "Content-Length").flatMap(Int.init)
    }

    /// The object's bytes as they arrive (all of them, or `range`), or nil when there is no such object.
    func get(_ key: String, range: ClosedRange<Int>? = nil, logger: Logger) async throws -> HTTPClientResponse? {
        let headers = range.map { [(name: "Range", value: "bytes=\($0.lowerBound)-\($0.upperBound)")] } ?? []
        let response = try await send("GET", key, headers: headers, logger: logger)
        if response.status == .notFound { return nil }
        try await expect(response, range == nil ? [200] : [206], "GET \(key)", keepingBody: true)
        return response
    }

    /// Deletes the object (none is not an error).
    func delete(_ key: String, logger: Logger) async throws {
        let response = try await send("DELETE", key, logger: logger)
        try await expect(response, [204, 200, 404], "DELETE \(key)")
    }

    /// One page (up to 1,000) of the keys under `prefix`, and the token of the next page if there is one (ListObjectsV2).
    func list(prefix: String, after token: String?, logger: Logger) async throws -> (keys: [String], next: String?) {
        var query = [(name: "list-type", value: "2"), (name: "prefix", value: prefix)]
        if let token { query.append((name: "continuation-token", value: token)) }
        let response = try await send("GET", nil, query: query, logger: logger)
        let document = try await expectDocument(response, "list \(prefix)")
        let truncated = document.child("IsTruncated")?.text == "true"
        return (document.children("Contents").compactMap { $0.child("Key")?.text }, truncated ? document.child("NextContinuationToken")?.text : nil)
    }

    // MARK: Multipart uploads

    func startMultipart(_ key: String, logger: Logger) async throws -> String {
        let response = try await send("POST", key, query: [(name: "uploads", value: "")], logger: logger)
        guard let upload = try await expectDocument(response, "start upload of \(key)").child("UploadId")?.text, !upload.isEmpty else {
            throw Self.unavailable("the store started an upload of \(key) without an upload id")
        }
        return upload
    }

    /// Sends part `number` (from 1) and returns its ETag.
    func uploadPart(_ key: String, upload: String, number: Int, body: ByteBuffer, logger: Logger) async throws -> String {
        let query = [(name: "partNumber", value: String(number)), (name: "uploadId", value: upload)]
        let payload = Hex.string(SHA256.hash(data: body.readableBytesView))
        let response = try await send("PUT", key, query: query, body: body, payloadHash: payload, logger: logger)
        try await expect(response, [200], "upload part \(number) of \(key)")
        guard let etag = response.headers.first(name: "ETag") else {
            throw Self.unavailable("the store took part \(number) of \(key) without an ETag")
        }
        return etag
    }

    func completeMultipart(_ key: String, upload: String, parts: [String], logger: Logger) async throws {
        let list = parts.enumerated().map { "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\(AtomRenderer.escape($0.element))</ETag></Part>" }
        let body = ByteBuffer(string: "<CompleteMultipartUpload>\(list.joined())</CompleteMultipartUpload>")
        let response = try await send(
            "POST",
            key,
            query: [(name: "uploadId", value: upload)],
            body: body,
            payloadHash: Hex.string(SHA256.hash(data: body.readableBytesView)),
            logger: logger
        )
        // A completion can fail after a 200 has begun: the error is then the document's root.
        let document = try await expectDocument(response, "complete upload of \(key)")
        if document.name == "Error" { throw Self.failure(document, status: 200, doing: "complete upload of \(key)") }
    }

    func abortMultipart(_ key: String, upload: String, logger: Logger) async throws {
        let response = try await send("DELETE", key, query: [(name: "uploadId", value: upload)], logger: logger)
        try await expect(response, [204, 200, 404], "abort upload of \(key)")
    }

    /// Uploads under `prefix` that were started and neither completed nor aborted (a process killed mid-upload).
    func unfinishedUploads(prefix: String, logger: Logger) async throws -> [(key: String, upload: String, started: Date)] {
        let response = try await send("GET", nil, query: [(name: "uploads", value: ""), (name: "prefix", value: prefix)], logger: logger)
        return try await expectDocument(response, "list uploads").children("Upload").compactMap { upload in
            guard let key = upload.child("Key")?.text, let id = upload.child("UploadId")?.text else { return nil }
            return (key, id, upload.child("Initiated").flatMap { WireFormat.parseDate($0.text) } ?? .distantPast)
        }
    }

    // MARK: Presigned URLs

    /// A URL that reads `key` for `expires` seconds, to anyone who holds it, at the public endpoint.
    func presignedGET(_ key: String, expires: Int, at date: Date = Date()) -> String {
        let host = location.pathStyle ? location.publicHost : "\(location.bucket).\(location.publicHost)"
        let request = SigV4Signer.Request(method: "GET", host: host, path: path(key))
        return signer.presignedURL(for: request, scheme: location.publicScheme, expires: expires, at: date)
    }

    // MARK: Sending

    private func send(
        _ method: String,
        _ key: String?,
        query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = [],
        body: ByteBuffer? = nil,
        payloadHash: String = SigV4Signer.emptyPayloadHash,
        logger: Logger
    ) async throws -> HTTPClientResponse {
        let path = path(key)
        let signed = SigV4Signer.Request(method: method, host: host, path: path, query: query, headers: headers, payloadHash: payloadHash)
        let queryText = query.isEmpty ? "" : "?" + SigV4Signer.canonicalQuery(query)
        var request = HTTPClientRequest(url: "\(location.scheme)://\(host)\(path)\(queryText)")
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers + signer.headers(for: signed, at: Date()) { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Length", value: String(body.readableBytes))
            request.body = .bytes(body)
        }
        do {
            return try await http.execute(request, timeout: timeout, logger: logger)
        } catch {
            throw Self.unavailable("\(method) \(path) did not reach the store: \(error)")
        }
    }

    /// Reads an error status's document and throws it; drains a success's body unless the caller reads it.
    private func expect(_ response: HTTPClientResponse, _ statuses: Set<UInt>, _ doing: String, keepingBody: Bool = false) async throws {
        if statuses.contains(response.status.code) {
            if !keepingBody { _ = try? await response.body.collect(upTo: 1 << 20) }
            return
        }
        let body = (try? await response.body.collect(upTo: 1 << 20)).map { Data(buffer: $0) } ?? Data()
        let document = try? XMLNode.parse(body, path: "S3 error")
        throw document.map { Self.failure($0, status: response.status.code, doing: doing) }
            ?? Self.unavailable("\(doing): the store answered \(response.status.code)")
    }

    /// A 200's XML document (up to 16 MB), or the error it is instead.
    private func expectDocument(_ response: HTTPClientResponse, _ doing: String) async throws -> XMLNode {
        guard response.status == .ok else {
            try await expect(response, [200], doing)
            throw Self.unavailable("\(doing): unreachable")
        }
        let body: ByteBuffer
        do { body = try await response.body.collect(upTo: 16 << 20) } catch { throw Self.unavailable("\(doing): \(error)") }
        do { return try XMLNode.parse(Data(buffer: body), path: doing) } catch { throw Self.unavailable("\(doing): the store's answer is not XML") }
    }

    /// An S3 error document (`<Error><Code>…</Code><Message>…</Message></Error>`) as the store being unavailable.
    static func failure(_ document: XMLNode, status: UInt, doing: String) -> ObjectStorageUnavailable {
        let code = document.child("Code")?.text ?? "status \(status)"
        let message = document.child("Message")?.text ?? ""
        return unavailable("\(doing): the store answered \(status) \(code)" + (message.isEmpty ? "" : " (\(message))"))
    }

    static func unavailable(_ detail: String) -> ObjectStorageUnavailable { ObjectStorageUnavailable(detail: detail) }
}

/// The object store failed or did not answer. Clients get a plain 503 with `Retry-After`: the store's bucket, keys
/// and messages describe the deployment, so they go to the log only (`LoggedDetail`) and to a one-off job's output.
struct ObjectStorageUnavailable: ProblemConvertible, LoggedDetail, CustomStringConvertible {
    let detail: String

    var problem: Problem {
        Problem(
            status: 503,
            slug: "storage-unavailable",
            title: "Service unavailable",
            detail: "The library's file storage did not answer; try again soon",
            retryAfter: 5
        )
    }

    var loggedDetail: String { "Object storage: \(detail)" }
    var description: String { loggedDetail }
}
