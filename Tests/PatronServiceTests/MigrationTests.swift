import Foundation
import Logging
import PostgresNIO
import TestSupport
import Testing

@testable import PatronService
@testable import PostgresSupport

/// Schema migrations as replicas meet them: several starting at once against one database.
@Suite struct MigrationTests {
    @Test func statementsEndAtSemicolonsOutsideFunctionBodies() {
        let statements = SQLStatements.split(
            """
                CREATE TABLE t (a int);
                CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    UPDATE t SET a = a + 1;
                    RETURN NULL;
                END $$;
                CREATE TRIGGER g AFTER INSERT ON t
                    FOR EACH STATEMENT EXECUTE FUNCTION f();
            """
        )
        #expect(statements.count == 3)
        #expect(statements[1].contains("RETURN NULL;") && statements[1].hasSuffix("END $$;\n"))
    }

    @Test func replicasStartingTogetherApplyEachMigrationExactlyOnce() async throws {
        let url = try await TestDatabase.create(prefix: "mig")
        let logger = Logger(label: "migration-test")
        let clients = try (0..<3).map { _ in PostgresClient(configuration: try DatabaseURL.configuration(url), backgroundLogger: logger) }
        try await withThrowingDiscardingTaskGroup { group in
            for client in clients { group.addTask { await client.run() } }
            try await withThrowingTaskGroup(of: Void.self) { starts in
                for client in clients { starts.addTask { try await patronSchema.apply(client: client, logger: logger) } }
                try await starts.waitForAll()
            }
            // A restart later finds nothing to do.
            try await patronSchema.apply(client: clients[0], logger: logger)
            let rows = try await clients[0].query(
                "SELECT version, count(*)::int FROM schema_migrations GROUP BY version ORDER BY version",
                logger: logger
            )
            var versions: [Int] = []
            for try await (version, count) in rows.decode((Int, Int).self) {
                #expect(count == 1)
                versions.append(version)
            }
            #expect(versions == patronSchema.migrations.map(\.version))
            let functions = try await clients[0].query("SELECT name FROM schema_functions ORDER BY name", logger: logger)
            var names: [String] = []
            for try await name in functions.decode(String.self) { names.append(name) }
            #expect(names == patronSchema.functions.map(\.name).sorted())
            group.cancelAll()
        }
    }

    /// A function changed in the code is replaced at the next start, and only then; one that did not change is left.
    @Test func aChangedFunctionIsReplacedAtTheNextStart() async throws {
        let url = try await TestDatabase.create(prefix: "fun")
        let logger = Logger(label: "migration-test")
        let client = PostgresClient(configuration: try DatabaseURL.configuration(url), backgroundLogger: logger)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            try await patronSchema.apply(client: client, logger: logger)
            let first = try #require(patronSchema.functions.first)
            let changed = DatabaseFunction(name: first.name, sql: first.sql.replacingOccurrences(of: "RETURN NULL;", with: "RETURN NULL; -- changed"))
            let schema = Schema(migrations: patronSchema.migrations, functions: [changed] + patronSchema.functions.dropFirst(), squashedThrough: 12)
            try await schema.apply(client: client, logger: logger)
            let definition = try await client.query(
                "SELECT pg_get_functiondef(\(first.name)::regproc)",
                logger: logger
            ).decode(String.self).first { _ in true }
            #expect(definition?.contains("-- changed") == true)
            var applied: [String] = []
            let newest = try await client.query(
                "SELECT name FROM schema_functions WHERE applied_at = (SELECT max(applied_at) FROM schema_functions)",
                logger: logger
            )
            for try await name in newest.decode(String.self) { applied.append(name) }
            #expect(applied == [first.name], "the unchanged function was not applied again")
            group.cancelAll()
        }
    }

    /// A database with some of the squashed migrations applied but not all (from before they were squashed) is refused
    /// with a message that says what to do, and is left as it was.
    @Test func aDatabaseOlderThanTheSquashedMigrationsIsRefused() async throws {
        let url = try await TestDatabase.create(prefix: "old")
        let logger = Logger(label: "migration-test")
        let client = PostgresClient(configuration: try DatabaseURL.configuration(url), backgroundLogger: logger)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            let early = Schema(migrations: Array(patronSchema.migrations.prefix(3)), functions: [], squashedThrough: 0)
            try await early.apply(client: client, logger: logger)
            await #expect(throws: Schema.TooOld.self) { try await patronSchema.apply(client: client, logger: logger) }
            var versions: [Int] = []
            let rows = try await client.query("SELECT version FROM schema_migrations ORDER BY version", logger: logger)
            for try await version in rows.decode(Int.self) { versions.append(version) }
            #expect(versions == [1, 2, 3])
            #expect(Schema.TooOld(version: 3, squashedThrough: 12).description.contains("version 3"))
            group.cancelAll()
        }
    }
}
