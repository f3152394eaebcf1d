import Foundation
import Logging
import PostgresSupport
import ServiceSupport
import Shared

/// `catalog restore DIR`: loads a `catalog backup` into an empty catalog database and its blob store (folder or
/// object storage, as configured): the blobs first, each checked against its hash, then the database in one
/// transaction. Refuses a database that has tables. At the end, every blob a restored book names must be in the store,
/// and every book's licence is queued for patron again (the catalog's outbox delivers them once the service runs).
public enum CatalogRestore {
    public static func run(config: ServiceConfig, from directory: URL) async throws {
        let parts = try CatalogDependencies(config: config)
        let folder = directory.appendingPathComponent(CatalogBackup.folderName)
        let manifest = try WireFormat.decoder().decode(
            CatalogBackup.Manifest.self,
            from: Data(contentsOf: folder.appendingPathComponent("MANIFEST.json"))
        )
        try await parts.postgres.whileRunning {
            guard try await DatabaseDump.isEmpty(parts.postgres, logger: parts.logger) else {
                throw ServiceConfig.Invalid(description: "catalog restore needs an empty database: CATALOG_DATABASE_URL has tables")
            }
            let progress = BackupProgress("catalog restore: blobs", total: manifest.blobs.count)
            try await CatalogBackup.forEach(manifest.blobs, concurrency: 4) { hash in
                let file = folder.appendingPathComponent("blobs").appendingPathComponent(hash)
                let stored = try await parts.blobs.put(file: file)
                guard stored.sha256 == hash else { throw DatabaseDump.Failed(description: "blob \(hash) damaged in the backup") }
                progress.advance(bytes: Int64((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0))
            }
            print("catalog restore: loading the database")
            try await DatabaseDump.restore(url: parts.settings.databaseURL, from: folder.appendingPathComponent("catalog.dump"))
            let named = try await parts.postgres.withConnection { connection in
                try await BackupPostgresRepository(connection: connection, logger: parts.logger).namedBlobs()
            }
            let missing = Set(named.hashes).subtracting(manifest.blobs)
            guard missing.isEmpty else { throw DatabaseDump.Failed(description: "\(missing.count) blobs the books name are not in the backup") }
            // Patron's backup was taken first: a book ingested or changed between the two, whose licence catalog had
            // already delivered by its snapshot, would stay unknown to the restored patron. Every licence goes again.
            let licences = try await parts.books.enqueueEveryLicense(logger: parts.logger)
            print(
                "catalog restore: done: \(named.books) books, \(named.hashes.count) blobs, every one in the store; \(licences) licences queued for patron"
            )
        }
    }
}
