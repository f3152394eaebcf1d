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
    let batches: [OutboxBatch]
    let schema: SchemaReadiness
    let logger: Logger
    /// Queues messages whose payload is worked out late, at the start of each pass (patron's figures of the books
    /// marked due: `FiguresPostgresRepository.queueDue`).
    let prepare: (@Sendable () async throws -> Void)?

    /// Messages delivered at once.
    static let parallelism = 8

    public init(
        client: PostgresClient,
        destination: InternalClient,
        interval: Duration = .milliseconds(500),
        batches: [OutboxBatch] = [],
        schema: SchemaReadiness,
        logger: Logger,
        prepare: (@Sendable () async throws -> Void)? = nil
    ) {
        self.outbox = OutboxPostgresRepository(client: client)
        self.destination = destination
        self.interval = interval
        self.batches = batches
        self.schema = schema
        self.logger = logger
        self.prepare = prepare
    }

    /// Until graceful shutdown, which ends the waits between passes and lets a pass under way finish (`PeriodicJob`).
    public func run() async throws {
        guard await schema.waitUnlessShuttingDown() else { return }
        try await loop()
    }

    private func loop() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                // At most 50 messages, 8 at a time, each a call of at most 5 s and the acknowledgements.
                let delivered = try await withTimeout(seconds: 60) { try await deliverDue() }
                if delivered == 0 { await PeriodicJob.pause(for: interval) }
            } catch let error where error.stopsBackgroundLoop {
                return
            } catch {
                logger.warning("Outbox delivery failed", metadata: ["error": "\(String(reflecting: error))"])
                await PeriodicJob.pause(for: interval)
            }
        }
    }

    /// Delivers the messages that are due now; returns how many were acknowledged.
    @discardableResult
    public func deliverDue(limit: Int = 50) async throws -> Int {
        try await prepare?()
        var claimed = try await outbox.claimDue(limit: limit, logger: logger)
        var delivered = 0
        for batch in batches {
            let together = claimed.filter { $0.key.hasPrefix(batch.keyPrefix) }
            guard !together.isEmpty else { continue }
            claimed.removeAll { $0.key.hasPrefix(batch.keyPrefix) }
            switch try await deliver(together, to: batch.path) {
            case .taken: delivered += together.count
            case .retried: break
            case .refused: claimed += together  // one by one, below
            }
        }
        // Several at a time: each message is independent (one key each), and the receiver is idempotent.
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

    /// What became of a batch: taken (and acknowledged), retried later with back-off, or refused with a 4xx (a
    /// receiver that does not know the route yet, during an upgrade, or one message it cannot take): its messages then
    /// go one by one, each to its own path.
    enum BatchOutcome { case taken, retried, refused }

    /// Sends messages of one kind as one request (a JSON array of their payloads).
    private func deliver(_ messages: [OutboxPostgresRepository.Message], to path: String) async throws -> BatchOutcome {
        do {
            let body = "[" + messages.map(\.payload).joined(separator: ",") + "]"
            try await destination.send(method: .PUT, path: path, body: Data(body.utf8), logger: logger)
        } catch InternalClient.Failure.status(let code, _) where (400..<500).contains(code) {
            logger.warning("Outbox batch refused; sending its messages one by one", metadata: ["outbox.path": "\(path)", "status": "\(code)"])
            return .refused
        } catch {
            logger.debug("Outbox messages not delivered", metadata: ["outbox.path": "\(path)", "error": "\(String(reflecting: error))"])
            for message in messages { try await outbox.retry(message, after: Self.backoff(message), logger: logger) }
            return .retried
        }
        try await outbox.acknowledge(messages, logger: logger)
        return .taken
    }

    static func backoff(_ message: OutboxPostgresRepository.Message) -> Double { min(60.0, pow(2.0, Double(message.attempts)) * 0.5) }

    /// Sends one message; true when the receiver took it, otherwise schedules a retry with back-off.
    private func deliver(_ message: OutboxPostgresRepository.Message) async throws -> Bool {
        do {
            try await destination.send(method: .PUT, path: message.path, body: Data(message.payload.utf8), logger: logger)
            return true
        } catch {
            logger.debug("Outbox message not delivered", metadata: ["outbox.key": "\(message.key)", "error": "\(String(reflecting: error))"])
            try await outbox.retry(message, after: Self.backoff(message), logger: logger)
            return false
        }
    }
}

/// Outbox messages that travel together: those whose key starts with `keyPrefix` are sent as one `PUT path` whose body
/// is the JSON array of their payloads (a borrowing storm's figures: one request and one statement for fifty books).
public struct OutboxBatch: Sendable {
    public var keyPrefix: String
    public var path: String

    public init(keyPrefix: String, path: String) {
        self.keyPrefix = keyPrefix
        self.path = path
    }
}
