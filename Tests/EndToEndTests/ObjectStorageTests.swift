import Foundation
import Logging
import ServiceSupport
import TestSupport
import Testing

@testable import CatalogService

#if canImport(Glibc)
import Glibc
#endif

/// Catalog with its blobs in S3-compatible object storage (a real server: Swift's s3api, `ObjectStorageServer`).
@Suite(.serialized) struct ObjectStorageEndToEndTests {
    static let logger = Logger(label: "object-storage-e2e")

    /// The bucket's contents as catalog stores them, through catalog's own client.
    static func store(_ server: ObjectStorageServer.Server, folder: URL) throws -> S3BlobStore {
        let settings = ServiceConfig(environment: [:], overrides: server.catalogSettings())
        let location = try #require(try S3Location.configured(settings))
        return S3BlobStore(client: S3Client(location: location), cache: try DirectoryBlobStore(root: folder), logger: logger)
    }

    static func storedObjects(_ store: S3BlobStore) async throws -> Set<String> {
        var found: Set<String> = []
        try await store.forEachStoredBatch { found.formUnion($0) }
        return found
    }

    /// Two catalog replicas with folders of their own (no shared disk) behind one gateway, reading from a PostgreSQL
    /// streaming replica: a book ingested through the first is borrowed, downloaded whole and in part, read and shown
    /// with its cover through the second, the first stopped. The bytes come from the bucket.
    @Test func twoCatalogReplicasWithoutASharedDiskServeBooksFromObjectStorage() async throws {
        try await ObjectStorageServer.run { server in
            try await Stack.run(server.catalogSettings(), catalogReplicas: 2, readReplica: true) { stack in
                let file = try #require(await Stack.corpus.first)
                let first = GatewayClient(base: "http://127.0.0.1:\(stack.ports[.catalog]!)")
                let ingested = try await first.call(
                    .POST,
                    "/admin/books?copies=1",
                    as: .bearer(Stack.adminToken),
                    body: try Data(contentsOf: file),
                    headers: [("Content-Type", "application/epub+zip")]
                )
                #expect(ingested.status == 201, "\(ingested.text)")
                let book = try #require(ingested.json["id"] as? String)
                await stack.stop(.catalog)

                let api = stack.gateway
                let (_, token) = try await stack.signUp()
                try await stack.waitForLicence(book, token: token)
                let ann = GatewayClient.Credentials.bearer(token)
                #expect(try await api.call(.POST, "/me/books/\(book)/borrow", as: ann).status == 201)
                let original = try Data(contentsOf: file)
                let download = try await api.call(.GET, "/books/\(book)/fulfill", as: ann)
                #expect(download.status == 200)
                #expect(download.body.sha256 == original.sha256)
                let part = try await api.call(.GET, "/books/\(book)/fulfill", as: ann, headers: [("Range", "bytes=10-19")])
                #expect(part.status == 206 && part.body == original.subdata(in: 10..<20))
                let manifest = try await api.call(.GET, "/books/\(book)/manifest.json").json
                let chapter = try #require((manifest["readingOrder"] as? [[String: Any]])?.first?["href"] as? String)
                let page = try await api.call(.GET, chapter, as: ann)
                #expect(page.status == 200 && page.text.contains("<html"), "\(chapter): \(page.status)")
                let cover = try await api.call(.GET, "/books/\(book)/cover")
                #expect(cover.status == 200 && cover.headers.first(name: "content-type")?.hasPrefix("image/") == true)

                let epub = BlobHash.path(download.body.sha256)
                #expect(
                    FileManager.default.fileExists(atPath: stack.workDir.appendingPathComponent("blobs-2/\(epub)").path),
                    "the second replica's own copy"
                )
                #expect(!FileManager.default.fileExists(atPath: stack.workDir.appendingPathComponent("blobs/\(epub)").path), "nothing shared on disk")
                #expect(stack.log(.secondCatalog).contains("Read replica in use"), "the second catalog reads from the replica")
                let objects = try await Self.storedObjects(try Self.store(server, folder: stack.workDir.appendingPathComponent("check")))
                #expect(objects.contains(download.body.sha256))
            }
        }
    }

    /// A catalog killed during 100 concurrent uploads into object storage leaves, after the next sweep, no book without
    /// its objects and no object without a book; an upload the kill cut off is aborted.
    @Test func aCatalogKilledDuringAHundredUploadsLeavesNoOrphanObjectAndNoBookWithoutOne() async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("s3-sweep-epubs-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let made = try await ChildProcess.run(["python3", TestTools.directory.appendingPathComponent("make_epubs.py").path, folder.path, "100", "13"])
        #expect(made.status == 0)
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).filter { $0.pathExtension == "epub" }
        #expect(files.count == 100)

        try await ObjectStorageServer.run { server in
            try await Stack.run(server.catalogSettings().merging(["BLOB_TEMP_MAX_AGE": "1s"]) { $1 }) {
                stack in
                let uploads = Task { await stack.uploadAtOnce(files) }
                try await eventually(timeout: .seconds(90), "some books were ingested before the kill") {
                    (try await stack.sql("catalog", "SELECT count(*) FROM books")).first.flatMap(Int.init) ?? 0 >= 5
                }
                await stack.stop(.catalog, signal: SIGKILL)
                _ = await uploads.value

                // Whatever the kill left, the sweep must also take an object no book uses and an upload cut off.
                let store = try Self.store(server, folder: stack.workDir.appendingPathComponent("check"))
                let planted = try await store.put(Data("an object no book uses".utf8)).sha256
                _ = try await store.client.startMultipart(store.key(String(repeating: "ef", count: 32)), logger: Self.logger)
                try await Task.sleep(for: .seconds(2))
                try stack.launch(.catalog)
                try await stack.waitUntilReady()

                let rows = try await stack.sql("catalog", "SELECT epub_sha256, coalesce(cover_sha256, ''), coalesce(thumbnail_sha256, '') FROM books")
                #expect(rows.count >= 5)
                let referenced = Set(rows.flatMap { $0.split(separator: "|").map(String.init) }.filter { !$0.isEmpty })
                #expect(!referenced.contains(planted))
                var left: Set<String> = []
                try await eventually(
                    timeout: .seconds(60),
                    "the start-up sweep removes every orphan object: \(left.subtracting(referenced).count) left"
                ) {
                    left = try await Self.storedObjects(store)
                    return left == referenced
                }
                #expect(try await store.client.unfinishedUploads(prefix: "blobs/", logger: Self.logger).isEmpty, "the cut-off upload was aborted")
                for hash in referenced {
                    // Fetched into a fresh folder and hashed on its way: every book's object is whole.
                    _ = try await store.verified(hash)
                }
            }
        }
    }
}
