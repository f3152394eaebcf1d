import Foundation
import PostgresSupport
import ServiceSupport
import TestSupport
import Testing

@testable import CatalogService

/// What catalog reads from its configuration where it differs from the other services.
@Suite struct CatalogSettingsTests {
    /// Catalog's statements are reads that keep a core busy: its pool defaults to two connections a core and two
    /// more (more only made them take turns inside PostgreSQL), not patron's 20; `DATABASE_MAX_CONNECTIONS` still rules.
    @Test func catalogsPoolDefaultsToTwoConnectionsACore() throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(DatabasePool.readsDefaultMaximum == 2 * cores + 2)
        // Not `TestConfig.base()`: it sets the small pool every test app gets.
        let unset = ServiceConfig(
            environment: ["SERVICE_TOKEN": TestConfig.serviceToken, "ADMIN_TOKEN": TestConfig.adminToken, "JWT_SECRET": TestConfig.jwtSecret]
        )
        #expect(try CatalogSettings(config: unset).databasePool.maximumConnections == 2 * cores + 2)
        #expect(try CatalogSettings(config: TestConfig.base(["DATABASE_MAX_CONNECTIONS": "9"])).databasePool.maximumConnections == 9)
    }
}
