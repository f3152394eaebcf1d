import Foundation
import PostgresSupport
import ServiceSupport
import TestSupport
import Testing

/// A service's connections, as `DatabaseURL.configuration` opens them.
@Suite struct DatabaseURLTests {
    /// JIT compilation is off: it cost a search at a million books ~0.6 s of compiling for a 28 ms query.
    @Test func connectionsRunWithoutJIT() async throws {
        let url = try await TestDatabase.create(prefix: "jit")
        #expect(try await TestDatabase.query("SHOW jit", on: url) == ["off"])
    }

    /// As libpq reads it: a host that is a folder is where the server's socket is, named after the port.
    @Test func aHostThatIsAFolderIsTheServersUnixSocket() throws {
        #expect(try DatabaseURL.configuration("postgres://u@/db?host=/run/postgresql").unixSocketPath == "/run/postgresql/.s.PGSQL.5432")
        #expect(try DatabaseURL.configuration("postgres://u@%2Frun%2Fpg:5433/db").unixSocketPath == "/run/pg/.s.PGSQL.5433")
        #expect(try DatabaseURL.configuration("postgres://u@db.example:5433/db").unixSocketPath == nil)
        #expect(try DatabaseURL.configuration("postgres://u@db.example:5433/db").host == "db.example")
    }

    @Test func aServiceConnectsThroughTheSocket() async throws {
        let folder = try #require(ProcessInfo.processInfo.environment["TEST_DATABASE_SOCKET"], "make test sets TEST_DATABASE_SOCKET")
        let url = try await TestDatabase.create(prefix: "sock")
        let socketURL = url + "?host=" + folder
        #expect(try DatabaseURL.configuration(socketURL).unixSocketPath != nil)
        #expect(try await TestDatabase.query("SELECT coalesce(inet_client_addr()::text, 'socket')", on: socketURL) == ["socket"])
    }

    /// Connections are opened as needed and pinged only when told (PostgresNIO set the ping timer again on every
    /// request); none kept open (PostgresNIO 1.33.2 stops the process when fewer than a minimum are open).
    @Test func aServicesPoolPingsNoneUnlessTold() throws {
        let service = try DatabasePool(config: ServiceConfig(environment: [:]))
        #expect(service == DatabasePool(maximumConnections: 20, keepAlive: nil))
        let options = try DatabaseURL.configuration("postgres://u@h/db", pool: service).options
        #expect(options.minimumConnections == 0 && options.maximumConnections == 20 && options.keepAliveBehavior == nil)

        let told = try DatabasePool(config: ServiceConfig(environment: ["DATABASE_MAX_CONNECTIONS": "8", "DATABASE_KEEPALIVE": "45s"]))
        #expect(told == DatabasePool(maximumConnections: 8, keepAlive: 45))
        let pinged = try DatabaseURL.configuration("postgres://u@h/db", pool: told).options
        #expect(pinged.keepAliveBehavior?.frequency == .seconds(45) && pinged.maximumConnections == 8 && pinged.minimumConnections == 0)

        // A service's own default (catalog's: `readsDefaultMaximum`) when the setting is absent, not when it is set.
        #expect(try DatabasePool(config: ServiceConfig(environment: [:]), defaultMaximum: 6).maximumConnections == 6)
        #expect(try DatabasePool(config: ServiceConfig(environment: ["DATABASE_MAX_CONNECTIONS": "8"]), defaultMaximum: 6).maximumConnections == 8)
    }

    @Test func aPoolThatCannotBeIsRefusedAtStart() {
        for environment in [["DATABASE_MAX_CONNECTIONS": "0"], ["DATABASE_MAX_CONNECTIONS": "many"], ["DATABASE_KEEPALIVE": "often"]] {
            #expect(throws: ServiceConfig.Invalid.self, "\(environment)") { try DatabasePool(config: ServiceConfig(environment: environment)) }
        }
    }
}
