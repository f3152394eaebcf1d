import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PostgresNIO
import PostgresSupport
import ServiceSupport
import TestSupport
import Testing

/// The outbox delivers messages of one kind together (`OutboxBatch`: patron's figures as one `PUT /internal/figures`);
/// a receiver that refuses the batch (one that does not know the route yet, during an upgrade) gets them one by one.
@Suite struct OutboxBatchTests {
    /// A receiver that records what it is sent; `knowsBatches` false answers the batch route 404, as an older one would.
    func receiver(knowsBatches: Bool, seen: RequestLog) -> some ApplicationProtocol {
        let router = Router()
        router.put("/internal/figures") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            await seen.record("/internal/figures", String(buffer: body))
            return Response(status: knowsBatches ? .noContent : .notFound)
        }
        router.put("/internal/books/:id/figures") { request, _ -> Response in
            await seen.record(request.uri.path, String(buffer: try await request.body.collect(upTo: 1 << 20)))
            return Response(status: .noContent)
        }
        router.put("/internal/licenses/:id") { request, _ -> Response in
            await seen.record(request.uri.path, String(buffer: try await request.body.collect(upTo: 1 << 20)))
            return Response(status: .noContent)
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    actor RequestLog {
        var requests: [(path: String, body: String)] = []
        func record(_ path: String, _ body: String) { requests.append((path, body)) }
    }

    func deliver(knowsBatches: Bool) async throws -> (requests: [(path: String, body: String)], delivered: Int, left: [String]) {
        let url = try await TestDatabase.create(prefix: "outbox")
        for statement in OutboxPostgresRepository.migrationSQL.split(separator: ";") where !statement.allSatisfy(\.isWhitespace) {
            try await TestDatabase.execute(String(statement), on: url)
        }
        try await TestDatabase.execute(
            """
            INSERT INTO outbox (key, path, payload) VALUES
                ('figures:a', '/internal/books/a/figures', '{"book": "a"}'),
                ('figures:b', '/internal/books/b/figures', '{"book": "b"}'),
                ('license:c', '/internal/licenses/c', '{"book": "c"}')
            """,
            on: url
        )
        let seen = RequestLog()
        let delivered = try await receiver(knowsBatches: knowsBatches, seen: seen).test(.live) { live in
            let port = try #require(live.port)
            var logger = Logger(label: "outbox-test")
            logger.logLevel = .error
            let client = PostgresClient(configuration: try DatabaseURL.configuration(url), backgroundLogger: logger)
            return try await withThrowingTaskGroup(of: Int.self) { group in
                group.addTask {
                    await client.run()
                    return 0
                }
                let deliverer = OutboxDeliverer(
                    client: client,
                    // A limit no loaded machine reaches (the default 5 s was, once, in a whole run).
                    destination: InternalClient(
                        baseURLs: ["http://127.0.0.1:\(port)"],
                        token: ServiceToken(TestConfig.serviceToken),
                        timeout: .seconds(120)
                    ),
                    batches: [OutboxBatch(keyPrefix: "figures:", path: "/internal/figures")],
                    schema: .migrated,
                    logger: logger
                )
                let delivered = try await deliverer.deliverDue()
                group.cancelAll()
                return delivered
            }
        }
        let left = try await TestDatabase.query("SELECT key FROM outbox ORDER BY key", on: url)
        return (await seen.requests, delivered, left)
    }

    @Test func messagesOfOneKindTravelAsOneRequestOfTheirPayloads() async throws {
        let (requests, delivered, left) = try await deliver(knowsBatches: true)
        #expect(delivered == 3 && left.isEmpty)
        let batch = try #require(requests.first { $0.path == "/internal/figures" })
        let payloads = try #require(try JSONSerialization.jsonObject(with: Data(batch.body.utf8)) as? [[String: String]])
        #expect(Set(payloads.compactMap { $0["book"] }) == ["a", "b"])
        #expect(requests.map(\.path).sorted() == ["/internal/figures", "/internal/licenses/c"])
    }

    @Test func aReceiverThatRefusesTheBatchGetsItsMessagesOneByOne() async throws {
        let (requests, delivered, left) = try await deliver(knowsBatches: false)
        #expect(delivered == 3 && left.isEmpty)
        #expect(
            requests.map(\.path).sorted() == ["/internal/books/a/figures", "/internal/books/b/figures", "/internal/figures", "/internal/licenses/c"]
        )
    }
}
