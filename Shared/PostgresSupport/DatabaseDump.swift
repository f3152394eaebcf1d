import Foundation
import Logging
import PostgresNIO
import ServiceSupport

/// PostgreSQL's own tools for a backup and a restore: `pg_dump` writes a database to one file (custom format, the
/// whole database as one snapshot sees it), `pg_restore` loads it into an empty one in a single transaction. The
/// database's password goes to them in their environment, never on a command line (which every user of the machine
/// can read with `ps`); a backup's folders are the owner's alone (0700) and its dumps 0600.
public enum DatabaseDump {
    public struct Failed: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// Writes the database at `url` to `file`; as the exported snapshot `snapshot` sees it when given (the caller's
    /// transaction holds it open meanwhile).
    public static func dump(url: String, to file: URL, snapshot: String? = nil) async throws {
        var arguments = ["--format=custom", "--no-owner", "--no-privileges", "--file=\(file.path)"]
        if let snapshot { arguments.append("--snapshot=\(snapshot)") }
        try await run("pg_dump", arguments, url: url)
        try setOwnerOnly(file, mode: 0o600)
    }

    /// Creates `folder` (and its parents) if needed and makes it readable by its owner only.
    public static func privateFolder(_ folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try setOwnerOnly(folder, mode: 0o700)
    }

    private static func setOwnerOnly(_ url: URL, mode: Int) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
    }

    /// The connection a tool is given: the URL without its password, and the password in `PGPASSWORD`.
    public static func connection(_ url: String) -> (dbname: String, environment: [String: String]) {
        guard var parts = URLComponents(string: url), let password = parts.password else { return (url, [:]) }
        parts.password = nil
        return (parts.string ?? url, ["PGPASSWORD": password.removingPercentEncoding ?? password])
    }

    /// Loads `file` into the database at `url`, whole or not at all.
    public static func restore(url: String, from file: URL) async throws {
        try await run("pg_restore", ["--no-owner", "--no-privileges", "--single-transaction", "--exit-on-error", file.path], url: url)
    }

    /// True when the database has no table yet: a restore's target.
    public static func isEmpty(_ client: PostgresClient, logger: Logger) async throws -> Bool {
        let rows = try await client.query("SELECT count(*)::int FROM pg_tables WHERE schemaname = 'public'", logger: logger)
        for try await count in rows.decode(Int.self) { return count == 0 }
        return true
    }

    /// The tables a dump holds, listed by `pg_restore --list`: a dump that cannot be read throws.
    public static func check(_ file: URL) async throws {
        try await run("pg_restore", ["--list", file.path])
    }

    private static func run(_ tool: String, _ arguments: [String], url: String? = nil) async throws {
        let connection = url.map(connection)
        try await BlockingWork.run {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [tool] + arguments + (connection.map { ["--dbname=\($0.dbname)"] } ?? [])
            process.environment = ProcessInfo.processInfo.environment.merging(connection?.environment ?? [:]) { $1 }
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            do { try process.run() } catch { throw Failed(description: "\(tool) could not start (install postgresql-client): \(error)") }
            let message = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw Failed(description: "\(tool) failed (\(process.terminationStatus)): \(String(decoding: message, as: UTF8.self))")
            }
        }
    }
}
