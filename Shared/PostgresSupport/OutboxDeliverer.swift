import Foundation
import Logging
import NIOHTTP1
import PostgresNIO
import ServiceLifecycle
import ServiceSupport

/// Delivers outbox messages with `PUT` to the other service. Safe with several replicas: a message is claimed
/// with `FOR UPDATE SKIP LOCKED` and a lease, and deleted only if it was not replaced meanwhile.
public struct OutboxDeliverer: Service {
    let outbox: OutboxPostgresRepository
    let destination: InternalClient
    let interval: Duration
    let schema: SchemaReadiness
    let logger: Logger

    /// Messages delivered at once.
    static let parallelism = 8

    public init(
        client: PostgresClient,
        destination: InternalClient,
        interval: Duration = .milliseconds(500),
        schema: SchemaReadiness,
        logger: Logger
    ) {
        self.outbox = OutboxPostgresRepository(client: client)
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
                // At most 50 messages, 8 at a time, each a call of at most 5 s and the acknowledgements.
                let delivered = try await withTimeout(seconds: 60) { try await deliverDue() }
                if delivered == 0 { try await Task.sleep(for: interval) }
            } catch  where error.stopsBackgroundLoop {
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
        let claimed = try await outbox.claimDue(limit: limit, logger: logger)
        // Several at a time: each message is independent (one key each), and the receiver is idempotent.
        var delivered = 0
        for start in stride(from: 0, to: claimed.count, by: Self.parallelism) {
            let batch = claimed[start..<min(start + Self.parallelism, claimed.count)]
            let sent = try await withThrowingTaskGroup(of: OutboxPostgresRepository.Message?.self) { group in
                for message in batch { group.addTask { try await deliver(message) ? message : nil } }
                var sent: [OutboxPostgresRepository.Message] = []
                for try await message in group { if let message { sent.append(message) } }
                return sent
            }
            // One statement for the batch: a crash before it only sends these again, which the receiver takes in its stride.
            try await outbox.acknowledge(sent, logger: logger)
            delivered += sent.count
        }
        return delivered
    }

    /// Sends one message; true when the receiver took it, otherwise schedules a retry with back-off.
    private func deliver(_ message: OutboxPostgresRepository.Message) async throws -> Bool {
        do {
            try await destination.send(method: .PUT, path: message.path, body: Data(message.payload.utf8), logger: logger)
            return true
        } catch {
            let backoff = min(60.0, pow(2.0, Double(message.attempts)) * 0.5)
            logger.debug("Outbox message not delivered", metadata: ["outbox.key": "\(message.key)", "error": "\(String(reflecting: error))"])
            try await outbox.retry(message, after: backoff, logger: logger)
            return false
        }
    }
}
