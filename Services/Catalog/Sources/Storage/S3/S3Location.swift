import Foundation
import ServiceSupport

/// Where blobs live in S3-compatible object storage: `BLOB_STORE=s3://bucket/prefix` with `S3_ENDPOINT`, `S3_REGION`,
/// `S3_ACCESS_KEY_ID`, `S3_SECRET_ACCESS_KEY`, `S3_PATH_STYLE` and, for presigned downloads, `S3_PUBLIC_ENDPOINT`.
struct S3Location: Sendable {
    var bucket: String
    /// Object keys start with it (no slash at either end); empty for the bucket's root.
    var prefix: String
    /// `http` or `https`.
    var scheme: String
    /// `host` or `host:port`, as the `Host` header carries it.
    var endpointHost: String
    /// The endpoint that clients of presigned URLs reach (`S3_PUBLIC_ENDPOINT`; the endpoint itself when unset).
    var publicScheme: String
    var publicHost: String
    var region: String
    var accessKeyID: String
    var secretAccessKey: String
    /// `https://endpoint/bucket/key` rather than `https://bucket.endpoint/key`.
    var pathStyle: Bool

    /// The location `BLOB_STORE` names, or nil when it names none (blobs in the local folder).
    static func configured(_ config: ServiceConfig) throws -> S3Location? {
        guard let store = config.string("BLOB_STORE"), !store.isEmpty, store != "local" else { return nil }
        guard store.hasPrefix("s3://") else {
            throw ServiceConfig.Invalid(description: "BLOB_STORE must be s3://bucket/prefix (or unset for the local folder BLOB_DIR)")
        }
        let path = store.dropFirst("s3://".count).split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let bucket = path.first else { throw ServiceConfig.Invalid(description: "BLOB_STORE names no bucket: \(store)") }
        guard let endpoint = config.string("S3_ENDPOINT"), let (scheme, host) = Self.endpoint(endpoint) else {
            throw ServiceConfig.Invalid(description: "BLOB_STORE=s3://… needs S3_ENDPOINT, e.g. https://s3.eu-west-1.amazonaws.com")
        }
        let (publicScheme, publicHost) =
            try config.string("S3_PUBLIC_ENDPOINT").map {
                guard let parsed = Self.endpoint($0) else { throw ServiceConfig.Invalid(description: "S3_PUBLIC_ENDPOINT must be an http(s) URL") }
                return parsed
            } ?? (scheme, host)
        guard let keyID = config.string("S3_ACCESS_KEY_ID"), config.string("S3_SECRET_ACCESS_KEY") != nil else {
            throw ServiceConfig.Invalid(description: "BLOB_STORE=s3://… needs S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY")
        }
        // A published placeholder (deploy/k8s's `change-me`) is refused as the other secrets are.
        let secret = try config.secret("S3_SECRET_ACCESS_KEY")
        return S3Location(
            bucket: bucket,
            prefix: path.dropFirst().joined(separator: "/"),
            scheme: scheme,
            endpointHost: host,
            publicScheme: publicScheme,
            publicHost: publicHost,
            region: config.string("S3_REGION", default: "us-east-1"),
            accessKeyID: keyID,
            secretAccessKey: secret,
            pathStyle: config.string("S3_PATH_STYLE", default: "false").lowercased() == "true"
        )
    }

    /// `http(s)://host[:port]` as its scheme and host; nil for anything else.
    static func endpoint(_ text: String) -> (scheme: String, host: String)? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { return nil }
        return (scheme, url.port.map { "\(host):\($0)" } ?? host)
    }

    /// `s3://bucket/prefix`, for logs and messages.
    var description: String { "s3://\(bucket)" + (prefix.isEmpty ? "" : "/\(prefix)") }
}
