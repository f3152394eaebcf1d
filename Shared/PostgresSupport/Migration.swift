import Foundation
import Logging
import PostgresNIO

/// One versioned schema change. Never edit a migration once it has shipped; add a new one.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    public let sql: String

    /// The statements of `sql`: the extended protocol runs one at a time. A statement ends with `;` at the end of a line
    /// outside a `$$` quoted function body.
    var statements: [String] {
        var result: [String] = []
        var current = ""
        var inFunctionBody = false
        for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
            current += line + "\n"
            if line.components(separatedBy: "$$").count % 2 == 0 { inFunctionBody.toggle() }
            if !inFunctionBody, line.trimmingCharacters(in: .whitespaces).hasSuffix(";") {
                result.append(current)
                current = ""
            }
        }
        if !current.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { result.append(current) }
        return result
    }

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}

/// Applies the migrations not yet recorded in `schema_migrations`, in order, in one transaction that holds a
/// transaction-scoped advisory lock: replicas starting together apply each migration exactly once.
public func applyMigrations(_ migrations: [Migration], client: PostgresClient, logger: Logger) async throws {
    try await client.transaction(logger: logger) { connection in
        try await connection.query("SELECT pg_advisory_xact_lock(7238001)", logger: logger)
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
            """,
            logger: logger
        )
        var applied = Set<Int>()
        for try await version in try await connection.query("SELECT version FROM schema_migrations", logger: logger).decode(Int.self) {
            applied.insert(version)
        }
        for migration in migrations.sorted(by: { $0.version < $1.version }) where !applied.contains(migration.version) {
            logger.info("Applying migration", metadata: ["migration.version": "\(migration.version)", "migration.name": "\(migration.name)"])
            for statement in migration.statements {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await connection.query(
                "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                logger: logger
            )
        }
    }
}
