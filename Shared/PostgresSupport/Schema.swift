import Foundation
import Logging
import PostgresNIO

/// A service's database schema: its migrations, then its functions.
public struct Schema: Sendable {
    public let migrations: [Migration]
    public let functions: [DatabaseFunction]
    /// The migrations up to this version were rewritten to hold schema changes only, for an empty database (their data
    /// backfills and function bodies were dropped): a database with some of them applied but not all is refused.
    public let squashedThrough: Int

    public init(migrations: [Migration], functions: [DatabaseFunction], squashedThrough: Int) {
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.functions = functions
        self.squashedThrough = squashedThrough
    }

    public struct TooOld: Error, CustomStringConvertible {
        public let version: Int
        public let squashedThrough: Int
        public var description: String {
            "The database is at schema version \(version), older than version \(squashedThrough), which this release cannot "
                + "upgrade from: start the release of 2026-11-27 against it once (it applies every migration up to "
                + "\(squashedThrough)), or load a dump into a new database"
        }
    }

    /// Applies the migrations not yet recorded in `schema_migrations`, in order, then every function whose definition
    /// differs from the one recorded in `schema_functions`, all in one transaction holding a transaction-scoped
    /// advisory lock: replicas starting together apply each change exactly once.
    public func apply(client: PostgresClient, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(7238001)", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                """,
                logger: logger
            )
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS schema_functions (
                    name text PRIMARY KEY, definition text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                """,
                logger: logger
            )
            var applied = Set<Int>()
            for try await version in try await connection.query("SELECT version FROM schema_migrations", logger: logger).decode(Int.self) {
                applied.insert(version)
            }
            if let newest = applied.max(), newest < squashedThrough { throw TooOld(version: newest, squashedThrough: squashedThrough) }
            for migration in migrations where !applied.contains(migration.version) {
                logger.info("Applying migration", metadata: ["migration.version": "\(migration.version)", "migration.name": "\(migration.name)"])
                for statement in SQLStatements.split(migration.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger: logger
                )
            }
            var recorded: [String: String] = [:]
            let rows = try await connection.query("SELECT name, definition FROM schema_functions", logger: logger)
            for try await (name, definition) in rows.decode((String, String).self) { recorded[name] = definition }
            for function in functions where recorded[function.name] != function.sql {
                logger.info("Applying function", metadata: ["function.name": "\(function.name)"])
                for statement in SQLStatements.split(function.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    """
                    INSERT INTO schema_functions (name, definition) VALUES (\(function.name), \(function.sql))
                    ON CONFLICT (name) DO UPDATE SET definition = excluded.definition, applied_at = now()
                    """,
                    logger: logger
                )
            }
        }
    }
}
