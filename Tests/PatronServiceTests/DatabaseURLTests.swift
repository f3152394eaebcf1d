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

    /// A service keeps its whole pool open and pings none unless told (PostgresNIO's timers for either were set
    /// again on every request); a command or a test's helper opens connections as it needs them.
    @Test func aServiceKeepsItsWholePoolOpenAndPingsNoneUnlessTold() throws {
        let service = try DatabasePool(config: ServiceConfig(environment: [:]))
        #expect(service == DatabasePool(maximumConnections: 20, minimumConnections: 20, keepAlive: nil))
        let options = try DatabaseURL.configuration("postgres://u@h/db", pool: service).options
        #expect(options.minimumConnections == 20 && options.maximumConnections == 20 && options.keepAliveBehavior == nil)

        let told = try DatabasePool(
            config: ServiceConfig(environment: ["DATABASE_MAX_CONNECTIONS": "8", "DATABASE_MIN_CONNECTIONS": "2", "DATABASE_KEEPALIVE": "45s"])
        )
        #expect(told == DatabasePool(maximumConnections: 8, minimumConnections: 2, keepAlive: 45))
        let pinged = try DatabaseURL.configuration("postgres://u@h/db", pool: told).options
        #expect(pinged.keepAliveBehavior?.frequency == .seconds(45) && pinged.minimumConnections == 2)
        #expect(try DatabasePool(config: ServiceConfig(environment: ["DATABASE_MAX_CONNECTIONS": "5"])).minimumConnections == 5)

        let onDemand = try DatabaseURL.configuration("postgres://u@h/db").options
        #expect(onDemand.minimumConnections == 0 && onDemand.maximumConnections == 20 && onDemand.keepAliveBehavior == nil)
    }

    @Test func aPoolThatCannotBeIsRefusedAtStart() {
        for environment in [
            ["DATABASE_MAX_CONNECTIONS": "0"], ["DATABASE_MAX_CONNECTIONS": "many"], ["DATABASE_MIN_CONNECTIONS": "21"],
            ["DATABASE_MIN_CONNECTIONS": "-1"], ["DATABASE_KEEPALIVE": "often"],
        ] {
            #expect(throws: ServiceConfig.Invalid.self, "\(environment)") { try DatabasePool(config: ServiceConfig(environment: environment)) }
        }
    }
}
