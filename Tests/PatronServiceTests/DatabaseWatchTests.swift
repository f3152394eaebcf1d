import Logging
import PostgresSupport
import ServiceSupport
import TestSupport
import Testing

/// `DatabaseWatch` alone: a database that answers is answering, and stays so under its pings; a server that refuses
/// connections is away from the first ping (the gate's 503 and readiness follow it; the outage tests have the rest).
@Suite struct DatabaseWatchTests {
    func watching<T>(_ url: String, _ body: (DatabaseWatch) async throws -> T) async throws -> T {
        let watch = try DatabaseWatch(url: url, interval: .milliseconds(50), logger: Logger(label: "watch-test"))
        let running = Task { try await watch.run() }
        defer { running.cancel() }
        return try await body(watch)
    }

    @Test func aDatabaseThatAnswersIsAnsweringAndOneThatRefusesIsAway() async throws {
        let url = try await TestDatabase.create(prefix: "watch")
        try await watching(url) { watch in
            for _ in 0..<20 {
                #expect(watch.isAnswering)
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        // Port 9 (discard) has no server here: every connection is refused.
        try await watching("postgres://postgres@127.0.0.1:9/nothing") { watch in
            try await eventually(timeout: .seconds(60), "a refused connection never made the database away") { !watch.isAnswering }
        }
    }
}
