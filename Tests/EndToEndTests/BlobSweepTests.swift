import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A catalog killed in the middle of uploads leaves, once restarted, no blob that no book uses and no book without
/// its blobs (`BlobSweeper` at start-up; blobs written under the row's advisory lock).
@Suite struct BlobSweepEndToEndTests {
    @Test func aCatalogKilledDuringUploadsLeavesNoOrphanAndNoRowWithoutItsBlobs() async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sweep-epubs-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let made = try await ChildProcess.run([
            "python3", TestTools.directory.appendingPathComponent("make_epubs.py").path, folder.path, "60", "11",
        ])
        #expect(made.status == 0)
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).filter { $0.pathExtension == "epub" }
        #expect(files.count == 60)

        try await Stack.run(["BLOB_TEMP_MAX_AGE": "0s"]) { stack in
            let uploads = Task { await stack.uploadAtOnce(files) }
            try await eventually(timeout: .seconds(60), "some books were ingested before the kill") {
                (try await stack.sql("catalog", "SELECT count(*) FROM books")).first.flatMap(Int.init) ?? 0 >= 5
            }
            await stack.stop(.catalog, signal: SIGKILL)
            _ = await uploads.value
            // Whatever the kill left, the sweep must also take a blob no row uses and a cut-off temporary file
            // (so that this test fails if the sweep does nothing).
            let planted = Data("a blob no book uses".utf8)
            let plantedFolder = stack.workDir.appendingPathComponent("blobs").appendingPathComponent(String(planted.sha256.prefix(2)))
            try FileManager.default.createDirectory(at: plantedFolder, withIntermediateDirectories: true)
            try planted.write(to: plantedFolder.appendingPathComponent(String(planted.sha256.dropFirst(2))))
            try Data("half a write".utf8).write(to: stack.workDir.appendingPathComponent("blobs/.tmp/cut-off"))
            try stack.launch(.catalog)
            try await stack.waitUntilReady()

            let blobRoot = stack.workDir.appendingPathComponent("blobs")
            func storedBlobs() -> Set<String> {
                var found: Set<String> = []
                for folder in (try? FileManager.default.contentsOfDirectory(atPath: blobRoot.path)) ?? [] where folder.count == 2 {
                    for name in (try? FileManager.default.contentsOfDirectory(atPath: blobRoot.appendingPathComponent(folder).path)) ?? [] {
                        found.insert(folder + name)
                    }
                }
                return found
            }
            let rows = try await stack.sql("catalog", "SELECT epub_sha256, coalesce(cover_sha256, ''), coalesce(thumbnail_sha256, '') FROM books")
            #expect(rows.count >= 5)
            let referenced = Set(rows.flatMap { $0.split(separator: "|").map(String.init) }.filter { !$0.isEmpty })
            #expect(!referenced.contains(planted.sha256))
            try await eventually(
                timeout: .seconds(30),
                "the start-up sweep removes every orphan: \(storedBlobs().subtracting(referenced).count) left"
            ) {
                storedBlobs() == referenced
            }
            let temporary = (try? FileManager.default.contentsOfDirectory(atPath: blobRoot.appendingPathComponent(".tmp").path)) ?? []
            #expect(temporary.isEmpty, "no temporary file is left: \(temporary)")
            #expect(referenced.isSubset(of: storedBlobs()), "every row has its blobs")
            for hash in storedBlobs() {
                let data = try Data(
                    contentsOf: blobRoot.appendingPathComponent(String(hash.prefix(2))).appendingPathComponent(String(hash.dropFirst(2)))
                )
                #expect(data.sha256 == hash, "a stored blob is whole")
            }
        }
    }
}
