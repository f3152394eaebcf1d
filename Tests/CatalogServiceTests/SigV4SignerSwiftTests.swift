import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Shared
import TestSupport
import Testing

@testable import CatalogService

/// The signer against a real S3 server: OpenStack Swift with its s3api middleware (`scripts/s3.sh`), which checks
/// SigV4 as AWS does. Signed requests create a bucket, store, read, read a range of, list and delete an object whose
/// key needs percent-encoding; a presigned URL reads it; a wrong secret is refused.
@Suite(.serialized) struct SigV4SignerSwiftTests {
    /// Creates `bucket` (the operator's job in production), trying again while a server just started answers 503.
    static func makeBucket(_ bucket: String, host: String) async throws {
        let signer = SigV4Signer(
            accessKeyID: ObjectStorageServer.accessKeyID,
            secretAccessKey: ObjectStorageServer.secretAccessKey,
            region: "us-east-1"
        )
        var status: HTTPResponseStatus = .serviceUnavailable
        for _ in 0..<20 where status == .serviceUnavailable {
            var request = HTTPClientRequest(url: "http://\(host)/\(bucket)")
            request.method = .PUT
            for (name, value) in signer.headers(for: .init(method: "PUT", host: host, path: "/\(bucket)"), at: Date()) {
                request.headers.add(name: name, value: value)
            }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 1 << 20)
            status = response.status
            if status == .serviceUnavailable { try await Task.sleep(for: .milliseconds(500)) }
        }
        #expect(status == .ok, "bucket \(bucket) created")
    }

    @Test func signedAndPresignedRequestsAreAcceptedAndAWrongSecretIsNot() async throws {
        try await ObjectStorageServer.run { server in
            let host = server.host
            // A bucket made here with a signed request, beside the one the server gave.
            let bucket = server.bucket + "-signed"
            let signer = SigV4Signer(accessKeyID: "test:tester", secretAccessKey: "testing", region: "us-east-1")
            func call(
                _ method: String,
                _ path: String,
                query: [(name: String, value: String)] = [],
                body: [UInt8] = [],
                range: String? = nil
            )
                async throws -> (status: UInt, body: String)
            {
                let extra = range.map { [(name: "Range", value: $0)] } ?? []
                let payload = Hex.string(SHA256.hash(data: body))
                let signed = SigV4Signer.Request(method: method, host: host, path: path, query: query, headers: extra, payloadHash: payload)
                var request = HTTPClientRequest(url: "http://\(host)\(path)" + (query.isEmpty ? "" : "?" + SigV4Signer.canonicalQuery(query)))
                request.method = HTTPMethod(rawValue: method)
                for (name, value) in extra + signer.headers(for: signed, at: Date()) { request.headers.add(name: name, value: value) }
                if !body.isEmpty { request.body = .bytes(ByteBuffer(bytes: body)) }
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                return (response.status.code, String(buffer: try await response.body.collect(upTo: 1 << 20)))
            }
            let key = SigV4Signer.path(bucket: bucket, key: "blobs/ab/a book.epub")
            try await Self.makeBucket(bucket, host: host)
            #expect(try await call("PUT", key, body: Array("hello object".utf8)).status == 200)
            #expect(try await call("GET", key) == (200, "hello object"))
            #expect(try await call("GET", key, range: "bytes=0-4") == (206, "hello"))
            let listing = try await call("GET", "/\(bucket)", query: [("list-type", "2"), ("prefix", "blobs/")])
            #expect(listing.status == 200 && listing.body.contains("<Key>blobs/ab/a book.epub</Key>"))

            func fetch(_ url: String) async throws -> (status: UInt, body: String) {
                let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
                return (response.status.code, String(buffer: try await response.body.collect(upTo: 1 << 20)))
            }
            let object = SigV4Signer.Request(method: "GET", host: host, path: key)
            #expect(try await fetch(signer.presignedURL(for: object, scheme: "http", expires: 60, at: Date())) == (200, "hello object"))
            let wrong = SigV4Signer(accessKeyID: "test:tester", secretAccessKey: "not-the-secret", region: "us-east-1")
            #expect(try await fetch(wrong.presignedURL(for: object, scheme: "http", expires: 60, at: Date())).status == 403)
            #expect(try await call("DELETE", key).status == 204)
            #expect(try await call("GET", key).status == 404)
        }
    }
}
