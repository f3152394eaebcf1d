import Foundation
import Testing

/// A real S3-compatible server for tests: OpenStack Swift with its s3api middleware (`scripts/s3.sh`), which checks
/// SigV4, payload hashes, ranges, multipart uploads and presigned URLs as AWS does. Access key `test:tester`, secret
/// `testing`, region us-east-1, path-style.
///
/// `make test` starts one for the whole run (`TEST_S3_ENDPOINT`, `TEST_S3_DIR`), as it starts PostgreSQL: each test gets
/// a bucket of its own there. Run without it (`swift test`), each test starts a server of its own.
public enum ObjectStorageServer {
    public static let accessKeyID = "test:tester"
    public static let secretAccessKey = "testing"

    /// A server and a fresh bucket on it.
    public struct Server: Sendable {
        /// `host:port`.
        public let host: String
        public let bucket: String

        /// The catalog settings for blobs under `prefix` in this bucket.
        public func catalogSettings(prefix: String = "blobs") -> [String: String] {
            [
                "BLOB_STORE": "s3://\(bucket)/\(prefix)", "S3_ENDPOINT": "http://\(host)", "S3_PATH_STYLE": "true",
                "S3_ACCESS_KEY_ID": accessKeyID, "S3_SECRET_ACCESS_KEY": secretAccessKey, "S3_REGION": "us-east-1",
            ]
        }
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var script: String { root.appendingPathComponent("scripts/s3.sh").path }

    /// Runs `body` with a bucket of its own on the run's server, or on a server started for it (stopped when `body` ends).
    public static func run(_ body: (Server) async throws -> Void) async throws {
        let bucket = "test-\(UUID().uuidString.lowercased().prefix(18))"
        let environment = ProcessInfo.processInfo.environment
        if let host = environment["TEST_S3_ENDPOINT"], let folder = environment["TEST_S3_DIR"] {
            let made = try await ChildProcess.run([script, "bucket", folder, bucket])
            guard made.status == 0 else {
                Issue.record("bucket \(bucket) not made: \(String(decoding: made.output, as: UTF8.self))")
                return
            }
            try await body(Server(host: host, bucket: bucket))
            return
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bookmobile-s3-\(UUID().uuidString)").path
        var started: (status: Int32, output: Data) = (1, Data())
        var port = 0
        // A port taken between the pick and the bind: another pick.
        for _ in 0..<3 where started.status != 0 {
            port = 30_000 + Int.random(in: 0..<500) * 4
            started = try await ChildProcess.run([script, "start", folder, String(port), bucket])
        }
        func stop() async {
            _ = try? await ChildProcess.run([script, "stop", folder])
            try? FileManager.default.removeItem(atPath: folder)
        }
        guard started.status == 0 else {
            await stop()
            Issue.record("Swift did not start: \(String(decoding: started.output, as: UTF8.self))")
            return
        }
        do {
            try await body(Server(host: "127.0.0.1:\(port)", bucket: bucket))
        } catch {
            await stop()
            throw error
        }
        await stop()
    }
}
