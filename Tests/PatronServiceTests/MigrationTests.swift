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
        let migration = Migration(
            version: 1,
            name: "x",
            sql: """
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
        #expect(migration.statements.count == 3)
        #expect(migration.statements[1].contains("RETURN NULL;") && migration.statements[1].hasSuffix("END $$;\n"))
    }

    @Test func replicasStartingTogetherApplyEachMigrationExactlyOnce() async throws {
        let url = try await TestDatabase.create(prefix: "mig")
        let logger = Logger(label: "migration-test")
        let clients = try (0..<3).map { _ in PostgresClient(configuration: try DatabaseURL.configuration(url), backgroundLogger: logger) }
        try await withThrowingDiscardingTaskGroup { group in
            for client in clients { group.addTask { await client.run() } }
            try await withThrowingTaskGroup(of: Void.self) { starts in
                for client in clients { starts.addTask { try await applyMigrations(patronMigrations, client: client, logger: logger) } }
                try await starts.waitForAll()
            }
            // A restart later finds nothing to do.
            try await applyMigrations(patronMigrations, client: clients[0], logger: logger)
            let rows = try await clients[0].query(
                "SELECT version, count(*)::int FROM schema_migrations GROUP BY version ORDER BY version",
                logger: logger
            )
            var versions: [Int] = []
            for try await (version, count) in rows.decode((Int, Int).self) {
                #expect(count == 1)
                versions.append(version)
            }
            #expect(versions == patronMigrations.map(\.version).sorted())
            group.cancelAll()
        }
    }
}
