import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import ServiceSupport

/// The live events' background work on each replica: numbers new events every `interval` (a pass that finds none costs
/// one indexed query), prunes old ones now and then, and listens for the numbering passes of every replica to wake the
/// streams open here (`PatronEventHub`). Reconnects after a failure.
struct PatronEventRelay: Service {
    let events: PatronEventPostgresRepository
    let hub: PatronEventHub
    let interval: TimeInterval
    let schema: SchemaReadiness
    let logger: Logger

    func run() async throws {
        guard await schema.waitUnlessShuttingDown() else { return }
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await numberEvents() }
                group.addTask { await listen() }
            }
        }
        hub.setListening(false)
    }

    private func numberEvents() async {
        var failures = 0
        var passes = 0
        while !Task.isCancelled {
            do {
                try await events.number(logger: logger)
                passes += 1
                // About once a minute at the default interval.
                if passes % 240 == 1 { try await events.prune(logger: logger) }
                if failures > 0 { logger.notice("Numbering live events again", metadata: ["failures": "\(failures)"]) }
                failures = 0
            } catch {
                if Task.isCancelled { break }
                failures += 1
                if failures == 1 || failures % 120 == 0 {
                    logger.warning("Live events not numbered", metadata: ["error": "\(String(reflecting: error))", "failures": "\(failures)"])
                }
            }
            try? await Task.sleep(for: .milliseconds(Int(interval * 1000) << min(failures, 4)))
        }
    }

    private func listen() async {
        var failures = 0
        while !Task.isCancelled {
            do {
                try await events.client.withConnection { connection in
                    try await connection.listen(on: PatronEventPostgresRepository.channel) { notifications in
                        hub.setListening(true)
                        if failures > 0 { logger.notice("Listening for live events again", metadata: ["failures": "\(failures)"]) }
                        failures = 0
                        for try await notification in notifications {
                            if let patronID = UUID(uuidString: notification.payload) { hub.wake(patronID: patronID) }
                        }
                    }
                }
            } catch {
                if Task.isCancelled { break }
                failures += 1
                if failures == 1 || failures % 30 == 0 {
                    logger.warning("Not listening for live events; streams read every heartbeat", metadata: ["error": "\(String(reflecting: error))"])
                }
            }
            hub.setListening(false)
            try? await Task.sleep(for: .seconds(1))
        }
    }
}
