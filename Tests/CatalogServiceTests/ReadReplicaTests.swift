import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceSupport
import Shared
import Synchronization
import TestSupport
import Testing

@testable import CatalogService

/// Catalog reading from a PostgreSQL streaming replica (`CATALOG_READ_DATABASE_URLS`): the replica `make test` starts
/// beside its cluster (`pg_basebackup -R`, `TEST_REPLICA_DATABASE_URL`). Feeds, search and book detail are read there;
/// a book just ingested is in the next feed, through this replica of catalog or another; a replica that stops is left
/// out and the primary answers (a read the replica could not answer too), and it is used again once back.
@Suite(.serialized) struct ReadReplicaTests {
    /// The test database's URL on the replica: the same database, the replica's server.
    static func onReplica(_ database: String) throws -> String {
        guard let replica = ProcessInfo.processInfo.environment["TEST_REPLICA_DATABASE_URL"],
            var parts = URLComponents(string: replica), let path = URLComponents(string: database)?.path
        else { throw ReplicaNotConfigured() }
        parts.path = path
        return try #require(parts.string)
    }

    struct ReplicaNotConfigured: Error, CustomStringConvertible {
        var description: String { "TEST_REPLICA_DATABASE_URL is not set: run the tests with `make test`, which starts a replica" }
    }

    static func parts(_ database: String, blobs: URL) throws -> CatalogDependencies {
        try CatalogDependencies(
            config: TestConfig.base([
                "CATALOG_DATABASE_URL": database, "CATALOG_READ_DATABASE_URLS": try onReplica(database), "BLOB_DIR": blobs.path,
                "CATALOG_READ_CHECK_INTERVAL": "0.05", "FEED_CACHE_TTL": "0",
            ])
        )
    }

    static func ingest(_ client: any TestClientProtocol, title: String) async throws -> String {
        let file = try MinimalEPUB.write(title: title)
        return try await client.execute(
            uri: "/admin/books",
            method: .post,
            headers: CatalogServiceTests.admin,
            body: ByteBuffer(data: try Data(contentsOf: file))
        ) { response in
            #expect(response.status == .created)
            let body = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
            return try #require(body?["id"] as? String)
        }
    }

    static func newBooks(_ client: any TestClientProtocol) async throws -> String {
        let (status, body) = try await read(client, "/opds/lanes/new?size=50")
        #expect(status == .ok)
        return body
    }

    /// A read as an app makes it: a 503 (the database pool could not make a connection in time, as happens at the
    /// whole suite's peak) is asked again after its `Retry-After`, a few times; what these tests check is which
    /// server answers and what it knows, not that every connection is made at once on a loaded machine.
    static func read(_ client: any TestClientProtocol, _ uri: String) async throws -> (HTTPResponse.Status, String) {
        func get() async throws -> (HTTPResponse.Status, String, Int?) {
            try await client.execute(uri: uri, method: .get) { response in
                (response.status, String(buffer: response.body), response.headers[.retryAfter].flatMap(Int.init))
            }
        }
        for _ in 1..<5 {
            let (status, body, retryAfter) = try await get()
            guard status == .serviceUnavailable, let retryAfter else { return (status, body) }
            try await Task.sleep(for: .seconds(retryAfter))
        }
        let (status, body, _) = try await get()
        return (status, body)
    }

    @Test func readsGoToTheReplicaAndABookJustIngestedIsInTheNextFeedOfEitherCatalog() async throws {
        let blobs = FileManager.default.temporaryDirectory.appendingPathComponent("replica-blobs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: blobs) }
        let database = try await TestDatabase.create(prefix: "replica")
        let first = try Self.parts(database, blobs: blobs)
        let second = try Self.parts(database, blobs: blobs)
        let replicas = try #require(first.readReplicas)
        let otherReplicas = try #require(second.readReplicas)
        try await buildCatalogApplication(parts: first).testRouter { one in
            try await buildCatalogApplication(parts: second).testRouter { other in
                for round in 1...5 {
                    let (writer, listener) = round % 2 == 0 ? (otherReplicas, replicas) : (replicas, otherReplicas)
                    let id = try await Self.ingest(round % 2 == 0 ? other : one, title: "Replicated Volume \(round)")
                    // The catalog that did not ingest hears the write's announcement a moment after it was answered
                    // (NOTIFY, as the README says); from then on, the very next reads through either see it.
                    let written = writer.fence
                    try await eventually(timeout: .seconds(30), "round \(round): the other catalog hears the write") { listener.fence >= written }
                    #expect(try await Self.newBooks(one).contains(id), "round \(round): the next feed of the first catalog")
                    #expect(try await Self.newBooks(other).contains(id), "round \(round): the next feed of the other catalog")
                    #expect(try await Self.read(one, "/opds/books/\(id)").0 == .ok)
                }
                try await eventually(timeout: .seconds(60), "feeds are read from the replica once it has caught up") {
                    let before = replicas.readsOnReplicas.load(ordering: .relaxed)
                    _ = try await Self.newBooks(one)
                    try await one.execute(uri: "/opds/search?q=replicated", method: .get) { response in
                        #expect(response.status == .ok && String(buffer: response.body).contains("Replicated Volume"))
                    }
                    return replicas.readsOnReplicas.load(ordering: .relaxed) > before
                }
            }
        }
    }

    /// Read-your-writes where the replica cannot have the write: with its replay paused, a book just ingested is in the
    /// next feed and detail all the same, and none of those reads goes to the replica; once it replays again, it is read.
    @Test func aReplicaBehindTheLastWriteIsNotReadUntilItHasReplayedIt() async throws {
        let blobs = FileManager.default.temporaryDirectory.appendingPathComponent("replica-blobs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: blobs) }
        let database = try await TestDatabase.create(prefix: "replica")
        let replicaURL = try Self.onReplica(database)
        let parts = try Self.parts(database, blobs: blobs)
        let replicas = try #require(parts.readReplicas)
        try await buildCatalogApplication(parts: parts).testRouter { client in
            try await eventually(timeout: .seconds(60), "the replica is in use") {
                let before = replicas.readsOnReplicas.load(ordering: .relaxed)
                _ = try await Self.newBooks(client)
                return replicas.readsOnReplicas.load(ordering: .relaxed) > before
            }
            try await TestDatabase.execute("SELECT pg_wal_replay_pause()", on: replicaURL)
            do {
                let id = try await Self.ingest(client, title: "Unreplayed Volume")
                let onReplica = replicas.readsOnReplicas.load(ordering: .relaxed)
                for _ in 0..<5 {
                    #expect(try await Self.newBooks(client).contains(id), "the book just ingested is in the next feed")
                    #expect(try await Self.read(client, "/opds/books/\(id)").0 == .ok)
                }
                #expect(replicas.readsOnReplicas.load(ordering: .relaxed) == onReplica, "no read went to the replica behind the write")
            } catch {
                try? await TestDatabase.execute("SELECT pg_wal_replay_resume()", on: replicaURL)
                throw error
            }
            try await TestDatabase.execute("SELECT pg_wal_replay_resume()", on: replicaURL)
            try await eventually(timeout: .seconds(60), "the replica is read again once it has replayed the write") {
                let before = replicas.readsOnReplicas.load(ordering: .relaxed)
                _ = try await Self.newBooks(client)
                return replicas.readsOnReplicas.load(ordering: .relaxed) > before
            }
        }
    }

    /// A catalog that starts after another one's write (and after its own schema is applied) reads no replica that
    /// has not replayed it: its fence starts at the primary's position once it listens, not at zero.
    @Test func aCatalogStartedAfterAWriteDoesNotReadAReplicaBehindIt() async throws {
        let blobs = FileManager.default.temporaryDirectory.appendingPathComponent("replica-blobs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: blobs) }
        let database = try await TestDatabase.create(prefix: "replica")
        let replicaURL = try Self.onReplica(database)
        let first = try Self.parts(database, blobs: blobs)
        let id = try await buildCatalogApplication(parts: first).testRouter { one in
            try await TestDatabase.execute("SELECT pg_wal_replay_pause()", on: replicaURL)
            return try await Self.ingest(one, title: "Written Before The Second Catalog")
        }
        do {
            let second = try Self.parts(database, blobs: blobs)
            let replicas = try #require(second.readReplicas)
            try await buildCatalogApplication(parts: second).testRouter { other in
                for _ in 0..<5 {
                    #expect(try await Self.newBooks(other).contains(id), "the book written before this catalog started")
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(replicas.readsOnReplicas.load(ordering: .relaxed) == 0, "no read went to the replica behind the write")
            }
        } catch {
            try? await TestDatabase.execute("SELECT pg_wal_replay_resume()", on: replicaURL)
            throw error
        }
        try await TestDatabase.execute("SELECT pg_wal_replay_resume()", on: replicaURL)
    }

    /// A step of the test below within a limit: a step that never ends fails the test, naming it, instead of
    /// stalling the whole run (one CI run stalled in this test, on 2026-12-05, and the step was not known).
    static func step<T: Sendable>(_ name: String, seconds: Double = 90, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            return try await withTimeout(seconds: seconds, body)
        } catch let error as TimeoutError {
            Issue.record("step \"\(name)\" did not end within \(Int(seconds)) s")
            throw error
        }
    }

    @Test func aReplicaThatStopsIsLeftOutAndUsedAgainOnceBack() async throws {
        let environment = ProcessInfo.processInfo.environment
        let folder = try #require(environment["TEST_REPLICA_DIR"], "make test sets TEST_REPLICA_DIR")
        let port = try #require(environment["TEST_REPLICA_PORT"])
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/postgres.sh").standardized.path
        let blobs = FileManager.default.temporaryDirectory.appendingPathComponent("replica-blobs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: blobs) }
        let database = try await TestDatabase.create(prefix: "replica")
        let parts = try Self.parts(database, blobs: blobs)
        let replicas = try #require(parts.readReplicas)
        try await buildCatalogApplication(parts: parts).testRouter { client in
            let id = try await Self.step("ingest a book") { try await Self.ingest(client, title: "Steadfast Volume") }
            try await Self.step("the replica is in use") {
                try await eventually(timeout: .seconds(60), "the replica is in use") {
                    let before = replicas.readsOnReplicas.load(ordering: .relaxed)
                    _ = try await Self.newBooks(client)
                    return replicas.readsOnReplicas.load(ordering: .relaxed) > before
                }
            }
            // A read under way on the replica that would never end by itself (it ignores cancellation, as a query
            // whose connection closed under it can in PostgresNIO): once the replica's pool is closed, it is asked of
            // the primary.
            let released = Released()
            let stuck = Task {
                try await BookPostgresRepository(reads: replicas).read { client in
                    if client === replicas.primary { return "primary" }
                    while !released.value.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(20)) }
                    return "replica"
                }
            }
            defer { released.value.withLock { $0 = true } }
            try await eventually(timeout: .seconds(60), "the read is under way on the replica") { replicas.readsUnderWayOnReplicas == 1 }
            do {
                // Inside: a stop that outlasts its step may have stopped the replica all the same, and it is started again.
                let stopped = try await Self.step("stop the replica") { try await ChildProcess.run([script, "stop", folder]) }
                #expect(stopped.status == 0)
                let answer = try await Self.step("the read under way when the replica stopped") { try await stuck.value }
                #expect(answer == "primary", "the read under way on the replica was asked of the primary")
                // Every read is answered, by the primary: the first ones too, which went to the replica before a check
                // found it gone (asked again of the primary).
                let onPrimary = replicas.readsOnPrimary.load(ordering: .relaxed)
                for uri in ["/opds/lanes/new?size=50", "/opds/books/\(id)", "/opds/search?q=steadfast"] {
                    for _ in 0..<4 {
                        let (status, body) = try await Self.step("read \(uri) while the replica is down") {
                            try await client.execute(uri: uri, method: .get) { ($0.status, String(buffer: $0.body)) }
                        }
                        #expect(status == .ok && body.contains(id), "\(uri) answered \(status) while the replica is down: \(body.prefix(300))")
                    }
                }
                #expect(replicas.readsOnPrimary.load(ordering: .relaxed) > onPrimary)
                let onReplica = replicas.readsOnReplicas.load(ordering: .relaxed)
                for _ in 0..<5 { _ = try await Self.step("read the new books while the replica is down") { try await Self.newBooks(client) } }
                #expect(replicas.readsOnReplicas.load(ordering: .relaxed) == onReplica, "no read goes to a replica that is down")
            } catch {
                _ = try? await ChildProcess.run([script, "start", folder, port])
                throw error
            }
            let started = try await Self.step("start the replica again") { try await ChildProcess.run([script, "start", folder, port]) }
            #expect(started.status == 0, "\(String(decoding: started.output, as: UTF8.self))")
            try await Self.step("the replica is used again once back") {
                try await eventually(timeout: .seconds(30), "the replica is used again once back") {
                    let before = replicas.readsOnReplicas.load(ordering: .relaxed)
                    _ = try await Self.newBooks(client)
                    return replicas.readsOnReplicas.load(ordering: .relaxed) > before
                }
            }
        }
    }
}

/// Lets a read that ignores cancellation end, once the test is over.
final class Released: Sendable {
    let value = Mutex(false)
}
