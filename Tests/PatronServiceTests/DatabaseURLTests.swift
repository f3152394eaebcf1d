import TestSupport
import Testing

/// A service's connections, as `DatabaseURL.configuration` opens them.
@Suite struct DatabaseURLTests {
    /// JIT compilation is off: it cost a search at a million books ~0.6 s of compiling for a 28 ms query.
    @Test func connectionsRunWithoutJIT() async throws {
        let url = try await TestDatabase.create(prefix: "jit")
        #expect(try await TestDatabase.query("SHOW jit", on: url) == ["off"])
    }
}
