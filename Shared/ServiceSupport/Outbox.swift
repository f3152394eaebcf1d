import Foundation
import NIOHTTP1
import Logging
import PostgresNIO
import PostgresSupport
import ServiceLifecycle
import Shared

/// A transactional outbox: messages for another service are written in the same transaction as the change
/// they describe and delivered by `OutboxDeliverer` until acknowledged.
///
/// Each message has a key (`figures:<book id>`); a newer message with the same key replaces an undelivered
/// older one, so a receiver sees the latest state, never a stale one after a fresh one. Receivers must be
/// idempotent (the payloads carry versions).
public enum Outbox {
    /// The table, for the service's migrations.
    public static let migrationSQL = """
        CREATE TABLE outbox (
            key text PRIMARY KEY,
            path text NOT NULL,
            payload jsonb NOT NULL,
            revision bigint NOT NULL DEFAULT 1,
            attempts integer NOT NULL DEFAULT 0,
            next_attempt_at timestamptz NOT NULL DEFAULT now(),
            created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX outbox_due ON outbox (next_attempt_at);
        """

    /// Queues `PUT path` with `payload` inside the caller's transaction.
    public static func enqueue<T: Encodable>(key: String, path: String, payload: T, on connection: PostgresConnection, logger: Logger) async throws {
        let json = String(decoding: try WireFormat.encode(payload), as: UTF8.self)
        try await connection.query(
            """
            INSERT INTO outbox (key, path, payload) VALUES (\(key), \(path), \(json)::jsonb)
            ON CONFLICT (key) DO UPDATE SET path = EXCLUDED.path, payload = EXCLUDED.payload,
                revision = outbox.revision + 1, attempts = 0, next_attempt_at = now()
            """,
            logger: logger
        )
    }
}

/// Delivers outbox messages with `PUT` to the other service. Safe with several replicas: a message is claimed
/// with `FOR UPDATE SKIP LOCKED` and a lease, and deleted only if it was not replaced meanwhile.
public struct OutboxDeliverer: Service {
    let client: PostgresClient
    let destination: InternalClient
    let interval: Duration
    let schema: SchemaReadiness
    let logger: Logger

    public init(
        client: PostgresClient, destination: InternalClient, interval: Duration = .milliseconds(500), schema: SchemaReadiness, logger: Logger
    ) {
        self.client = client
        self.destination = destination
        self.interval = interval
        self.schema = schema
        self.logger = logger
    }

    public func run() async throws {
        try await cancelWhenGracefulShutdown {
            do { try await schema.wait() } catch { return }
            try await loop()
        }
    }

    private func loop() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let delivered = try await deliverDue()
                if delivered == 0 { try await Task.sleep(for: interval) }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("Outbox delivery failed", metadata: ["error": "\(String(reflecting: error))"])
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// Delivers the messages that are due now; returns how many were acknowledged.
    @discardableResult
    public func deliverDue(limit: Int = 50) async throws -> Int {
        let rows = try await client.query(
            """
            UPDATE outbox SET next_attempt_at = now() + interval '30 seconds'
            WHERE key IN (SELECT key FROM outbox WHERE next_attempt_at <= now() ORDER BY created_at LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING key, path, payload::text, revision, attempts
            """,
            logger: logger
        )
        var claimed: [Message] = []
        for try await (key, path, payload, revision, attempts) in rows.decode((String, String, String, Int64, Int).self) {
            claimed.append(Message(key: key, path: path, payload: payload, revision: revision, attempts: attempts))
        }
        // Several at a time: each message is independent (one key each), and the receiver is idempotent.
        var delivered = 0
        for start in stride(from: 0, to: claimed.count, by: Self.parallelism) {
            let batch = claimed[start..<min(start + Self.parallelism, claimed.count)]
            delivered += try await withThrowingTaskGroup(of: Bool.self) { group in
                for message in batch { group.addTask { try await deliver(message) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
        }
        return delivered
    }

    /// Messages delivered at once.
    static let parallelism = 8

    struct Message: Sendable {
        var key: String
        var path: String
        var payload: String
        var revision: Int64
        var attempts: Int
    }

    /// Sends one message; on success deletes it unless it was replaced meanwhile, otherwise schedules a retry with back-off.
    private func deliver(_ message: Message) async throws -> Bool {
        do {
            try await destination.send(method: .PUT, path: message.path, body: Data(message.payload.utf8), logger: logger)
            try await client.query("DELETE FROM outbox WHERE key = \(message.key) AND revision = \(message.revision)", logger: logger)
            return true
        } catch {
            let backoff = min(60.0, pow(2.0, Double(message.attempts)) * 0.5)
            logger.debug("Outbox message not delivered", metadata: ["outbox.key": "\(message.key)", "error": "\(String(reflecting: error))"])
            try await client.query(
                """
                UPDATE outbox SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => \(backoff))
                WHERE key = \(message.key) AND revision = \(message.revision)
                """,
                logger: logger
            )
            return false
        }
    }
}
