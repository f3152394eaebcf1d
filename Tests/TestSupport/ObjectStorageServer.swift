import Foundation
import Testing

/// A real S3-compatible server for a test: OpenStack Swift with its s3api middleware (`scripts/s3.sh`), which checks
/// SigV4, payload hashes, ranges, multipart uploads and presigned URLs as AWS does. Access key `test:tester`, secret
/// `testing`, region us-east-1, path-style.
public enum ObjectStorageServer {
    public static let accessKeyID = "test:tester"
    public static let secretAccessKey = "testing"

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Swift on four ports picked at random, under a folder of its own (`bookmobile-s3-…`, which `make test` cleans up
    /// after a crash), with `buckets` created, given to `body` as `host:port`; stopped when `body` ends.
    public static func run(buckets: [String] = [], _ body: (String) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bookmobile-s3-\(UUID().uuidString)").path
        let script = root.appendingPathComponent("scripts/s3.sh").path
        var started: (status: Int32, output: Data) = (1, Data())
        var port = 0
        // A port taken between the pick and the bind: another pick.
        for _ in 0..<3 where started.status != 0 {
            port = 30_000 + Int.random(in: 0..<500) * 4
            started = try await ChildProcess.run([script, "start", folder, String(port)] + buckets)
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
            try await body("127.0.0.1:\(port)")
        } catch {
            await stop()
            throw error
        }
        await stop()
    }

    /// The catalog settings for blobs in `bucket` of the server at `host`.
    public static func catalogSettings(host: String, bucket: String, prefix: String = "blobs") -> [String: String] {
        [
            "BLOB_STORE": "s3://\(bucket)/\(prefix)", "S3_ENDPOINT": "http://\(host)", "S3_PATH_STYLE": "true",
            "S3_ACCESS_KEY_ID": accessKeyID, "S3_SECRET_ACCESS_KEY": secretAccessKey, "S3_REGION": "us-east-1",
        ]
    }
}
