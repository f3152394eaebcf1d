import Foundation
import PostgresSupport
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
}
