import Foundation
import PostgresSupport
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
        #expect(try CatalogSettings(config: TestConfig.base()).databasePool.maximumConnections == 2 * cores + 2)
        #expect(try CatalogSettings(config: TestConfig.base(["DATABASE_MAX_CONNECTIONS": "9"])).databasePool.maximumConnections == 9)
    }
}
