import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Shared
import Synchronization
import TestSupport
import Testing

@testable import CatalogService

/// A blob is checked against its hash the first time a process serves it: damaged bytes are never sent, and the
/// next ingest of the same file repairs it.
extension CatalogServiceTests {
    /// After a restart nothing is known to be sound: twenty requests at once for one blob hash it once, not twenty times.
    @Test func concurrentFirstRequestsForABlobHashItOnce() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("blobs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let data = Data((0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) })
        let (hash, created) = try await DirectoryBlobStore(root: root).put(data)
        #expect(created)
        let restarted = try DirectoryBlobStore(root: root)
        try await withThrowingTaskGroup(of: URL.self) { group in
            for _ in 0..<20 { group.addTask { try await restarted.verified(hash) } }
            for try await url in group { #expect(url == restarted.url(for: hash)) }
        }
        #expect(restarted.checked.hashings.withLock { $0 } == 1)
    }

    @Test func aDamagedBlobIsNeverServedAfterARestartAndTheSameFileRepairsIt() async throws {
        let config = TestConfig.base(["CATALOG_DATABASE_URL": try await TestDatabase.create(prefix: "integrity"), "BLOB_DIR": blobs.path])
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 0, count: 64)
        let file = try epub(title: "Fragile", cover: png, coverPath: "cover.png", coverType: "image/png")
        let original = try Data(contentsOf: file)
        let id = try await buildCatalogApplication(config: config).testRouter { client in
            let (status, body) = try await ingest(client, file, query: "?open_access=true")
            #expect(status == .created)
            let id = try #require(body["id"] as? String)
            try await client.execute(uri: "/books/\(id)/fulfill", method: .get) { #expect($0.status == .ok) }
            return id
        }
        // A power loss tore the file: same size, other bytes.
        let blob = try DirectoryBlobStore(root: blobs).url(for: try BlobHash.of(file: file))
        var torn = original
        torn.replaceSubrange(original.count / 2..<original.count, with: Data(repeating: 0, count: original.count - original.count / 2))
        try torn.write(to: blob)

        try await buildCatalogApplication(config: config).testRouter { client in
            // A restarted catalog answers 503 database-unavailable until its database watch has heard PostgreSQL (on a
            // loaded machine that took a moment once): ready first.
            try await eventually("the restarted catalog never became ready") {
                try await client.execute(uri: "/health/ready", method: .get) { $0.status == .ok }
            }
            for uri in ["/books/\(id)/fulfill", "/books/\(id)/publication/OPS/chapter.xhtml"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .serviceUnavailable, "\(uri)")
                    let problem = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                    #expect(problem?["type"] as? String == Problem.typeBase + "file-damaged")
                }
            }
            #expect(!FileManager.default.fileExists(atPath: blob.path), "the damaged blob was set aside")
            let (again, _) = try await ingest(client, file, query: "?open_access=true")
            #expect(again == .ok)
            try await client.execute(uri: "/books/\(id)/fulfill", method: .get) { response in
                #expect(response.status == .ok)
                #expect(Data(buffer: response.body) == original)
            }
        }
    }
}
