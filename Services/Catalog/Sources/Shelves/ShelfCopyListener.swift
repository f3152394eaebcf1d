import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import ServiceSupport

/// Listens on the `shelf_copies` channel for the versions any replica stores, so that `ShelfCopyMemory` knows which
/// copies it holds are current; sends itself a heartbeat every `heartbeat` so that a silently lost connection stops
/// the copies being trusted within `ShelfCopyMemory.heartbeatTimeout`. Reconnects after a failure.
struct ShelfCopyListener: Service {
    let client: PostgresClient
    let memory: ShelfCopyMemory
    let heartbeat: Duration
    let logger: Logger
    /// This replica's heartbeats, told apart from the others'.
    private let replica = UUID().lowercased

    init(client: PostgresClient, memory: ShelfCopyMemory, heartbeat: Duration = .seconds(2), logger: Logger) {
        self.client = client
        self.memory = memory
        self.heartbeat = heartbeat
        self.logger = logger
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await listen() }
                group.addTask { await beat() }
            }
        }
        memory.stoppedListening()
    }

    private func listen() async {
        var failures = 0
        var listened = false
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: ShelfCopyPostgresRepository.channel) { notifications in
                        memory.startedListening()
                        if listened { logger.notice("Listening for shelf copies again", metadata: ["failures": "\(failures)"]) }
                        listened = true
                        failures = 0
                        for try await notification in notifications { receive(notification.payload) }
                    }
                }
            } catch {
                if Task.isCancelled { break }
                failures += 1
                if failures == 1 || failures % 30 == 0 {
                    logger.warning(
                        "Not listening for shelf copies; reading them from PostgreSQL",
                        metadata: ["error": "\(String(reflecting: error))"]
                    )
                }
            }
            memory.stoppedListening()
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func receive(_ payload: String) {
        let parts = payload.split(separator: ":")
        guard parts.count == 2 else { return }
        if parts[0] == "heartbeat" {
            if parts[1] == replica { memory.heard() }
        } else if let patronID = UUID(uuidString: String(parts[0])), let version = Int64(parts[1]) {
            memory.announced(version, for: patronID)
        }
    }

    private func beat() async {
        while !Task.isCancelled {
            _ = try? await client.query("SELECT pg_notify(\(ShelfCopyPostgresRepository.channel), \("heartbeat:" + replica))", logger: logger)
            try? await Task.sleep(for: heartbeat)
        }
    }
}
