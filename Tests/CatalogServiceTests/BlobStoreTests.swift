import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceSupport
import Shared
import TestSupport
import Testing

@testable import CatalogService

/// The two blob stores keep the same promises: a stored blob reads back whole, a second put of the same bytes writes
/// nothing, the store lists what it holds, a damaged blob is never served, a removed one is gone, cut-off writes are
/// cleared. The S3 store runs against a real S3 server (`ObjectStorageServer`: Swift's s3api), with files large
/// enough for multipart uploads, and its presigned URLs, and says clearly when its bucket cannot be used.
@Suite(.serialized) struct BlobStoreTests {
    enum Kind: String, CaseIterable { case folder, objectStorage }

    static let logger = Logger(label: "blob-store-test")

    /// A store of `kind` in a fresh folder (and bucket), given to `body` with a way to damage a stored blob.
    static func withStore(_ kind: Kind, _ body: (any BlobStore, _ damage: @Sendable (String) async throws -> Void) async throws -> Void) async throws
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blob-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let local = try DirectoryBlobStore(root: folder)
        switch kind {
        case .folder:
            try await body(local) { hash in try Data("damaged".utf8).write(to: local.url(for: hash)) }
        case .objectStorage:
            try await ObjectStorageServer.run { server in
                let store = try objectStore(server, cache: local)
                try await body(store) { hash in
                    let bytes = ByteBuffer(string: "damaged")
                    try await store.client.put(store.key(hash), body: bytes, sha256: BlobHash.of(Data(buffer: bytes)), logger: logger)
                    try await store.cache.remove(hash)
                }
            }
        }
    }

    static func objectStore(_ server: ObjectStorageServer.Server, cache: DirectoryBlobStore, redirects: Bool = false) throws -> S3BlobStore {
        let location = try #require(
            try S3Location.configured(ServiceConfig(environment: [:], overrides: server.catalogSettings()))
        )
        return S3BlobStore(client: S3Client(location: location), cache: cache, cacheMaxBytes: 1 << 20, redirects: redirects, logger: logger)
    }

    /// `count` bytes that differ with `seed`: a pseudo-random 64 KB block, each copy of it marked with its number (a
    /// byte at a time over twelve megabytes was seconds of a debug build's CPU on the test process's few threads).
    static func bytes(_ count: Int, seed: UInt32 = 1) -> Data {
        var state = seed
        let block = (0..<(64 << 10)).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        var data = Data(capacity: count)
        var copy: UInt32 = 0
        while data.count < count {
            var marked = block
            withUnsafeBytes(of: copy.littleEndian) { marked.replaceSubrange(0..<4, with: $0) }
            data.append(contentsOf: marked.prefix(count - data.count))
            copy += 1
        }
        return data
    }

    @Test(arguments: Kind.allCases) func storedBlobsReadBackListAndGo(kind: Kind) async throws {
        try await Self.withStore(kind) { store, _ in
            let small = Self.bytes(70_000)
            let (smallHash, created) = try await store.put(small)
            #expect(created && smallHash == BlobHash.of(small))
            #expect(try await store.put(small).created == false, "the same bytes again write nothing")

            // 12 MB: in three parts of 5 MB, 5 MB and 2 MB to object storage.
            let large = Self.bytes(12 << 20, seed: 7)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("large-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: file) }
            try large.write(to: file)
            let (largeHash, largeCreated) = try await store.put(file: file)
            #expect(largeCreated && largeHash == BlobHash.of(large))
            #expect(try await store.put(file: file).created == false)

            #expect(try Data(contentsOf: try await store.verified(smallHash)) == small)
            #expect(try Data(contentsOf: try await store.verified(largeHash)) == large)
            var listed: Set<String> = []
            try await store.forEachStoredBatch { listed.formUnion($0) }
            #expect(listed == [smallHash, largeHash])

            try await store.remove(smallHash)
            await #expect(throws: BlobDamaged.self) { try await store.verified(smallHash) }
            listed = []
            try await store.forEachStoredBatch { listed.formUnion($0) }
            #expect(listed == [largeHash])
        }
    }

    @Test(arguments: Kind.allCases) func aDamagedBlobIsNeverServedAndTheSameBytesRepairIt(kind: Kind) async throws {
        try await Self.withStore(kind) { store, damage in
            let data = Self.bytes(50_000, seed: 3)
            let (hash, _) = try await store.put(data)
            try await damage(hash)
            // A fresh process: nothing checked yet.
            let error = await #expect(throws: BlobDamaged.self) { try await Self.restarted(store).verified(hash) }
            #expect(error?.missing == false)
            let repaired = try await store.put(data)
            #expect(repaired.created, "the damaged blob was set aside, so the same bytes are written again")
            #expect(try Data(contentsOf: try await Self.restarted(store).verified(hash)) == data)
        }
    }

    /// The same store as a new process has it: no hash checked, no local copy.
    static func restarted(_ store: any BlobStore) throws -> any BlobStore {
        if let folder = store as? DirectoryBlobStore { return try DirectoryBlobStore(root: folder.root) }
        let objects = try #require(store as? S3BlobStore)
        let emptyCache = try DirectoryBlobStore(root: objects.cache.root.appendingPathComponent("restarted-\(UUID().uuidString)"))
        return S3BlobStore(client: objects.client, cache: emptyCache, cacheMaxBytes: objects.cacheMaxBytes, logger: logger)
    }

    @Test func objectStorageFetchesABlobOnceForConcurrentFirstReadsAndKeepsItsCacheWithinBounds() async throws {
        try await Self.withStore(.objectStorage) { store, _ in
            let objects = try #require(store as? S3BlobStore)
            let blobs = [Self.bytes(400_000, seed: 11), Self.bytes(400_000, seed: 12), Self.bytes(400_000, seed: 13)]
            var hashes: [String] = []
            for blob in blobs { hashes.append(try await objects.put(blob).sha256) }
            let first = hashes[0]
            try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<10 { group.addTask { try Data(contentsOf: try await objects.verified(first)) } }
                for try await read in group { #expect(read == blobs[0]) }
            }
            #expect(objects.cache.checked.hashings.withLock { $0 } == 0, "fetched once and hashed on its way in, not read again")
            for hash in hashes { _ = try await objects.verified(hash) }
            // 1.2 MB of copies in a cache of 1 MB: the oldest goes.
            #expect(objects.trimLocalCopies() == 1)
            #expect(try Data(contentsOf: try await objects.verified(hashes[0])) == blobs[0], "a trimmed copy is fetched again")
        }
    }

    @Test func objectStorageAbortsUploadsACrashCutOffAndPresignsDownloads() async throws {
        try await Self.withStore(.objectStorage) { store, _ in
            let objects = try #require(store as? S3BlobStore)
            // An upload started and never finished, as a killed catalog leaves it.
            let upload = try await objects.client.startMultipart(objects.key(String(repeating: "ab", count: 32)), logger: Self.logger)
            #expect(try await objects.client.unfinishedUploads(prefix: "blobs/", logger: Self.logger).map(\.upload) == [upload])
            #expect(try await objects.removeAbandonedWrites(olderThan: 3600) == 0, "an upload under way is left alone")
            try await Task.sleep(for: .seconds(2))  // the store gives the start in whole seconds
            #expect(try await objects.removeAbandonedWrites(olderThan: 1) == 1)
            #expect(try await objects.client.unfinishedUploads(prefix: "blobs/", logger: Self.logger).isEmpty)

            let data = Self.bytes(30_000, seed: 5)
            let (hash, _) = try await objects.put(data)
            #expect(objects.redirect(for: hash) == nil, "no redirect unless configured")
            let redirecting = S3BlobStore(client: objects.client, cache: objects.cache, redirects: true, redirectLifetime: 60, logger: Self.logger)
            let url = try #require(redirecting.redirect(for: hash))
            #expect(url.contains("X-Amz-Expires=60"))
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
            #expect(response.status == .ok)
            #expect(Data(buffer: try await response.body.collect(upTo: 1 << 20)) == data)
        }
    }

    @Test func aBucketThatCannotBeUsedIsSaidClearlyAndAnswersA503() async throws {
        try await ObjectStorageServer.run { server in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blob-store-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let cache = try DirectoryBlobStore(root: folder)
            let good = try Self.objectStore(server, cache: cache)
            try await good.probe()

            var missing = good.client.location
            missing.bucket = "no-such-bucket"
            let noBucket = S3BlobStore(client: S3Client(location: missing), cache: cache, logger: Self.logger)
            // The store's words go to the log; the client's 503 names no bucket, key, host or store message.
            let failure = await #expect(throws: ObjectStorageUnavailable.self) { try await noBucket.probe() }
            #expect(failure?.problem.status == 503 && failure?.problem.retryAfter != nil)
            #expect(failure?.loggedDetail.contains("NoSuchBucket") == true, "\(failure?.loggedDetail ?? "")")
            #expect(failure.map { Self.saysNothingOfTheStore($0.problem, location: missing) } == true, "\(failure?.problem.detail ?? "")")

            var wrongSecret = good.client.location
            wrongSecret.secretAccessKey = "not-the-secret"
            let refused = S3BlobStore(client: S3Client(location: wrongSecret), cache: cache, logger: Self.logger)
            let denied = await #expect(throws: ObjectStorageUnavailable.self) { try await refused.put(Data("x".utf8)) }
            #expect(denied?.loggedDetail.contains("403") == true, "\(denied?.loggedDetail ?? "")")
            #expect(denied.map { Self.saysNothingOfTheStore($0.problem, location: wrongSecret) } == true)

            var away = good.client.location
            away.endpointHost = "127.0.0.1:1"
            let unreachable = S3BlobStore(client: S3Client(location: away), cache: cache, logger: Self.logger)
            let down = await #expect(throws: ObjectStorageUnavailable.self) { try await unreachable.verified(String(repeating: "cd", count: 32)) }
            #expect(down?.problem.status == 503 && down?.loggedDetail.contains("did not reach the store") == true)
            #expect(down.map { Self.saysNothingOfTheStore($0.problem, location: away) } == true, "\(down?.problem.detail ?? "")")
        }
    }

    static func saysNothingOfTheStore(_ problem: Problem, location: S3Location) -> Bool {
        let text = String(decoding: (try? WireFormat.encode(problem)) ?? Data(), as: UTF8.self)
        return ![location.bucket, location.endpointHost, "NoSuchBucket", "403", "cdcdcd", "Object storage:"].contains { text.contains($0) }
    }

    /// `catalog migrate-blobs`: a folder's blobs into the bucket; a damaged one counted and left; a second run sends
    /// nothing again.
    @Test func migrateBlobsCopiesAFolderIntoTheBucketAndIsSafeToRepeat() async throws {
        try await ObjectStorageServer.run { server in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blob-store-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let local = try DirectoryBlobStore(root: folder)
            var hashes: Set<String> = []
            for seed in 1...3 { hashes.insert(try await local.put(Self.bytes(20_000 * seed, seed: UInt32(seed))).sha256) }
            let damaged = try await local.put(Self.bytes(1_000, seed: 99)).sha256
            try Data("torn".utf8).write(to: local.url(for: damaged))

            let config = TestConfig.base(server.catalogSettings().merging(["BLOB_DIR": folder.path]) { $1 })
            #expect(try await BlobMigration.run(config: config) == .init(copied: 3, alreadyThere: 0, damaged: 1))
            #expect(try await BlobMigration.run(config: config) == .init(copied: 0, alreadyThere: 3, damaged: 0), "the damaged blob was set aside")
            let objects = try Self.objectStore(server, cache: try DirectoryBlobStore(root: folder.appendingPathComponent("check")))
            var listed: Set<String> = []
            try await objects.forEachStoredBatch { listed.formUnion($0) }
            #expect(listed == hashes)
            for hash in hashes { _ = try await objects.verified(hash) }
        }
    }
}
