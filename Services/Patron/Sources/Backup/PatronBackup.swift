import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport

/// `patron backup DIR` and `patron restore DIR`: the patron database as one snapshot sees it, in
/// `DIR/patron/patron.dump`, while the service runs; restored into an empty database in one transaction. Run it before
/// `catalog backup DIR` (docs/DEPLOY.md): every book a loan names is then in the catalog's backup.
public enum PatronBackup {
    public static let folderName = "patron"

    public static func backup(config: ServiceConfig, into directory: URL) async throws {
        let settings = try PatronSettings(config: config)
        let folder = directory.appendingPathComponent(folderName)
        try DatabaseDump.privateFolder(folder)
        let file = folder.appendingPathComponent("patron.dump")
        let start = Date()
        print("patron backup: dumping the database")
        try await DatabaseDump.dump(url: settings.databaseURL, to: file)
        try await DatabaseDump.check(file)
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        print(String(format: "patron backup: done and checked: %.1f MB in %.0f s", Double(size) / 1_048_576, Date().timeIntervalSince(start)))
    }

    public static func restore(config: ServiceConfig, from directory: URL) async throws {
        let settings = try PatronSettings(config: config)
        let logger = Observability.logger(service: "patron", config: config)
        let client = PostgresClient(configuration: try DatabaseURL.configuration(settings.databaseURL), backgroundLogger: logger)
        guard try await client.whileRunning({ try await DatabaseDump.isEmpty(client, logger: logger) }) else {
            throw ServiceConfig.Invalid(description: "patron restore needs an empty database: PATRON_DATABASE_URL has tables")
        }
        print("patron restore: loading the database")
        try await DatabaseDump.restore(
            url: settings.databaseURL,
            from: directory.appendingPathComponent(folderName).appendingPathComponent("patron.dump")
        )
        print("patron restore: done")
    }
}
