import Foundation
import PostgresSupport
import Testing

/// What `pg_dump` and `pg_restore` are given: the password only in their environment, never on the command line.
@Suite struct DatabaseDumpTests {
    @Test func thePasswordLeavesTheURLForTheEnvironment() {
        let (dbname, environment) = DatabaseDump.connection("postgres://library:s%40cret@db.example:5432/patron?sslmode=require")
        #expect(!dbname.contains("cret") && dbname.contains("library@db.example:5432/patron") && dbname.contains("sslmode=require"), "\(dbname)")
        #expect(environment == ["PGPASSWORD": "s@cret"])
        let bare = DatabaseDump.connection("postgres://postgres@127.0.0.1:5433/patron")
        #expect(bare.dbname == "postgres://postgres@127.0.0.1:5433/patron" && bare.environment.isEmpty)
    }

    @Test func aPrivateFolderIsTheOwnersAlone() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dump-\(UUID().uuidString.prefix(8))/patron")
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try DatabaseDump.privateFolder(folder)
        #expect(try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int == 0o700)
    }
}
