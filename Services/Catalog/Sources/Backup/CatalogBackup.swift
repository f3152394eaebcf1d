import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

#if canImport(Glibc)
import Glibc
#endif

/// `catalog backup DIR`: a consistent backup of the catalog while it runs, in `DIR/catalog/`: `catalog.dump` (the
/// database as one snapshot sees it), `blobs/` (every blob that snapshot names, under its hash) and `MANIFEST.json`.
/// Blobs are written before the rows that name them and never change, so the snapshot is taken first and then the
/// blobs it names are copied; the orphan sweep deletes none meanwhile (`BackupPostgresRepository.lockSpace`). A
/// blob already in `blobs/` from an earlier backup into the same folder is not copied again. At the end every blob is
/// read back and checked against its hash. `patron backup DIR` is to be run first (docs/DEPLOY.md).
public enum CatalogBackup {
    public struct Manifest: Codable, Sendable, Equatable {
        public var takenAt: Date
        public var books: Int
        public var blobs: [String]
    }

    public static let folderName = "catalog"

    public static func run(config: ServiceConfig, into directory: URL) async throws -> Manifest {
        let parts = try CatalogDependencies(config: config)
        let folder = directory.appendingPathComponent(folderName)
        let blobFolder = folder.appendingPathComponent("blobs")
        try DatabaseDump.privateFolder(folder)
        try FileManager.default.createDirectory(at: blobFolder, withIntermediateDirectories: true)
        return try await parts.postgres.whileRunning {
            try await parts.postgres.withConnection { connection in
                let repository = BackupPostgresRepository(connection: connection, logger: parts.logger)
                let snapshot = try await repository.beginSnapshot()
                print("catalog backup: snapshot \(snapshot); dumping the database")
                try await DatabaseDump.dump(url: parts.settings.databaseURL, to: folder.appendingPathComponent("catalog.dump"), snapshot: snapshot)
                let (hashes, books) = try await repository.namedBlobs()
                try await repository.endSnapshot()
                print("catalog backup: \(books) books, \(hashes.count) blobs to copy")
                let progress = BackupProgress("catalog backup: blobs", total: hashes.count)
                try await forEach(hashes, concurrency: 4) { hash in
                    let target = blobFolder.appendingPathComponent(hash)
                    if FileManager.default.fileExists(atPath: target.path), (try? BlobHash.of(file: target)) == hash {
                        progress.advance(bytes: 0)
                        return
                    }
                    let source = try await parts.blobs.verified(hash)
                    let partial = blobFolder.appendingPathComponent(".\(hash).partial")
                    try? FileManager.default.removeItem(at: partial)
                    try FileManager.default.copyItem(at: source, to: partial)
                    guard rename(partial.path, target.path) == 0 else { throw DatabaseDump.Failed(description: "cannot write \(target.path)") }
                    progress.advance(bytes: Int64((try? FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int) ?? 0))
                }
                try await repository.releaseLock()
                let manifest = Manifest(takenAt: Date(), books: books, blobs: hashes)
                try WireFormat.encode(manifest).write(to: folder.appendingPathComponent("MANIFEST.json"), options: .atomic)
                try await check(folder: folder, manifest: manifest)
                return manifest
            }
        }
    }

    /// Reads every blob of the backup back against its hash, and the dump with `pg_restore --list`.
    static func check(folder: URL, manifest: Manifest) async throws {
        try await DatabaseDump.check(folder.appendingPathComponent("catalog.dump"))
        let progress = BackupProgress("catalog backup: checked", total: manifest.blobs.count)
        try await forEach(manifest.blobs, concurrency: 2) { hash in
            let file = folder.appendingPathComponent("blobs").appendingPathComponent(hash)
            guard (try? BlobHash.of(file: file)) == hash else {
                throw DatabaseDump.Failed(description: "blob \(hash) missing or damaged in the backup")
            }
            progress.advance(bytes: 0)
        }
        print("catalog backup: checked: \(manifest.books) books, \(manifest.blobs.count) blobs present, every hash matches")
    }

    /// Runs `body` for each element, `concurrency` at once.
    static func forEach(_ items: [String], concurrency: Int, _ body: @escaping @Sendable (String) async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            while next < min(concurrency, items.count) {
                let item = items[next]
                group.addTask { try await body(item) }
                next += 1
            }
            while try await group.next() != nil, next < items.count {
                let item = items[next]
                group.addTask { try await body(item) }
                next += 1
            }
            try await group.waitForAll()
        }
    }
}
