import Foundation
import Logging
import NIOCore
import PostgresNIO
import PostgresSupport

/// Idempotency keys and the answers to the writes they came with.
struct IdempotencyPostgresRepository: Sendable {
    let client: PostgresClient

    /// How long a key and its answer are kept.
    static let lifetime: TimeInterval = 24 * 3600

    /// A kept key: the request it came with, and its answer once kept.
    struct Kept: Sendable {
        var fingerprint: [UInt8]
        var answer: Answer?
        /// Seconds since the write kept the key.
        var age: TimeInterval
    }

    struct Answer: Sendable {
        var status: Int
        var contentType: String?
        var location: String?
        var body: ByteBuffer
    }

    func find(patronID: UUID, key: IdempotencyKey, logger: Logger) async throws -> Kept? {
        let rows = try await client.query(
            """
            SELECT fingerprint, status, content_type, location, body, extract(epoch FROM now() - created_at)::float8 FROM idempotency_keys
            WHERE patron_id = \(patronID) AND key = \(key.value)
            """,
            logger: logger
        )
        for try await (fingerprint, status, contentType, location, body, age) in rows.decode(
            (ByteBuffer, Int?, String?, String?, ByteBuffer?, Double).self
        ) {
            let answer = status.map { Answer(status: $0, contentType: contentType, location: location, body: body ?? ByteBuffer()) }
            return Kept(fingerprint: Array(buffer: fingerprint), answer: answer, age: age)
        }
        return nil
    }

    /// Keeps `claim`'s key in the transaction on `connection`. A key another request kept first (committed, or
    /// committing while this waits on the unique index) is `IdempotencyError.inFlight`.
    static func keep(_ claim: IdempotencyClaim, on connection: PostgresConnection, logger: Logger) async throws {
        do {
            try await connection.query(
                """
                INSERT INTO idempotency_keys (patron_id, key, fingerprint)
                VALUES (\(claim.patronID), \(claim.key.value), \(ByteBuffer(bytes: claim.fingerprint)))
                """,
                logger: logger
            )
        } catch let error as PSQLError where error.isUniqueViolation {
            throw IdempotencyError.inFlight
        }
    }

    /// Keeps the answer to the write that kept the key.
    func keep(_ answer: Answer, patronID: UUID, key: IdempotencyKey, logger: Logger) async throws {
        try await client.query(
            """
            UPDATE idempotency_keys SET status = \(answer.status), content_type = \(answer.contentType), location = \(answer.location),
                body = \(answer.body) WHERE patron_id = \(patronID) AND key = \(key.value)
            """,
            logger: logger
        )
    }

    /// Forgets the keys older than `lifetime`.
    func sweep(logger: Logger) async throws {
        try await client.query(
            "DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(secs => \(Self.lifetime))",
            logger: logger
        )
    }
}
