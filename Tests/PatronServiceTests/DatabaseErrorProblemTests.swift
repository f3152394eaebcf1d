import PostgresSupport
import ServiceSupport
import TestSupport
import Testing

/// A database error as a request answers it: a connection lost under the query (a PostgreSQL restart) is 503 with
/// `Retry-After`, any other fault a 500.
@Suite struct DatabaseErrorProblemTests {
    @Test func aLostConnectionIs503AndAnyOtherDatabaseFaultA500() async throws {
        let url = try await TestDatabase.create(prefix: "dberror")
        // The query ends its own connection, as a server restart does to a query in flight.
        let lost = await #expect(throws: (any Error).self) {
            try await TestDatabase.query("SELECT pg_terminate_backend(pg_backend_pid())::text", on: url)
        }
        let unavailable = (lost as? any ProblemConvertible)?.problem
        #expect(unavailable?.status == 503 && unavailable?.retryAfter != nil, "\(String(reflecting: lost))")

        let fault = await #expect(throws: (any Error).self) { try await TestDatabase.query("SELECT nonsense FROM nowhere", on: url) }
        #expect((fault as? any ProblemConvertible)?.problem.status == 500, "\(String(reflecting: fault))")
    }
}
