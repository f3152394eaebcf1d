import Foundation
import Logging
import PostgresNIO
import Shared

/// A transactional outbox: messages for another service are written in the same transaction as the change
/// they describe and delivered by `OutboxDeliverer` until acknowledged.
///
/// Each message has a key (`figures:<book id>`); a newer message with the same key replaces an undelivered
/// older one, so a receiver sees the latest state, never a stale one after a fresh one. Receivers must be
/// idempotent (the payloads carry versions).
public struct OutboxPostgresRepository: Sendable {
    /// One claimed message; `revision` tells whether a newer one replaced it meanwhile.
    public struct Message: Sendable {
        public var key: String
        public var path: String
        public var payload: String
        public var revision: Int64
        public var attempts: Int
    }

    let client: PostgresClient

    public init(client: PostgresClient) { self.client = client }

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
    public static func enqueue<T: Encodable>(
        key: String,
        path: String,
        payload: T,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let json = String(decoding: try WireFormat.encode(payload), as: UTF8.self)
        for try await _ in try await connection.run(Enqueue.self, key, path, json, logger: logger) {}
    }

    /// $1 key, $2 path, $3 payload (JSON text); prepared (`PreparedSQL`): every change another service learns of runs it.
    enum Enqueue: PreparedSQL {
        static let sql = """
            INSERT INTO outbox (key, path, payload) VALUES ($1::text, $2::text, $3::text::jsonb)
            \(replacingUndelivered)
            """
    }

    /// Ends an `INSERT INTO outbox (key, path, payload)`: a message replaces an undelivered one of the same key. For a
    /// statement that builds its payload in SQL (`FiguresPostgresRepository.Queue`) and so saves a round trip.
    public static let replacingUndelivered = replacingUndelivered(when: "true")

    /// `replacingUndelivered`, only where `condition` holds (on `outbox`, the message queued, and `EXCLUDED`, the new
    /// one): payloads that carry a version keep the newest.
    public static func replacingUndelivered(when condition: String) -> String {
        """
        ON CONFLICT (key) DO UPDATE SET path = EXCLUDED.path, payload = EXCLUDED.payload,
            revision = outbox.revision + 1, attempts = 0, next_attempt_at = now()
        WHERE \(condition)
        """
    }

    /// $1 keys, $2 their revisions.
    enum Acknowledge: PreparedSQL {
        static let sql = """
            DELETE FROM outbox o USING unnest($1::text[], $2::int8[]) AS delivered (key, revision)
            WHERE o.key = delivered.key AND o.revision = delivered.revision
            """
    }

    /// Claims up to `limit` due messages for 30 seconds (`FOR UPDATE SKIP LOCKED`: replicas claim different ones).
    func claimDue(limit: Int, logger: Logger) async throws -> [Message] {
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
        return claimed
    }

    /// Deletes delivered messages, each unless a newer one replaced it meanwhile: one statement for a batch.
    func acknowledge(_ messages: [Message], logger: Logger) async throws {
        guard !messages.isEmpty else { return }
        let rows = try await client.run(Acknowledge.self, messages.map(\.key), messages.map(\.revision), logger: logger)
        for try await _ in rows {}
    }

    /// Schedules another attempt of an undelivered message after `seconds`.
    func retry(_ message: Message, after seconds: Double, logger: Logger) async throws {
        try await client.query(
            """
            UPDATE outbox SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => \(seconds))
            WHERE key = \(message.key) AND revision = \(message.revision)
            """,
            logger: logger
        )
    }
}
