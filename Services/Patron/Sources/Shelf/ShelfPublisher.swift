import Foundation
import Logging
import PostgresSupport
import ServiceLifecycle
import ServiceSupport
import Shared

/// Keeps catalog's copy of every patron's shelf current, so that catalog personalises feeds without asking patron.
///
/// A change is published at once by `ShelfPublishMiddleware` before the patron's own request is answered (a borrow
/// shows on the very next page), and by this service's passes every `interval` for changes the patron did not make
/// (an offer after someone's return, a hold moving up the queue, an expiry). When catalog cannot be reached the
/// change stays queued and a later pass delivers it. Safe with several replicas (`ShelfPostgresRepository.read`).
struct ShelfPublisher: Service {
    let shelves: ShelfPostgresRepository
    let catalog: InternalClient
    let interval: TimeInterval
    let schema: SchemaReadiness
    let logger: Logger
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init(shelves: ShelfPostgresRepository, catalog: InternalClient, interval: TimeInterval, schema: SchemaReadiness, logger: Logger) {
        self.shelves = shelves
        self.catalog = catalog
        self.interval = interval
        self.schema = schema
        self.logger = logger
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks for a pass now: a patron's change may have changed others' shelves too (an offer after a return).
    func passSoon() { wake.yield() }

    /// Until graceful shutdown, which ends the waits between passes and lets a pass under way finish (`PeriodicJob`).
    func run() async throws {
        guard await schema.waitUnlessShuttingDown() else { return }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
                wake.yield()
            }
        }
        defer { ticker.cancel() }
        var failures = 0
        for await _ in wakeups.cancelOnGracefulShutdown() {
            if Task.isCancelled || Task.isShuttingDownGracefully { break }
            do {
                // A pass takes seconds; one cut short leaves the rest of its shelves to the next.
                try await withTimeout(seconds: 30) { try await runOnce() }
                failures = 0
            } catch let error where error.stopsBackgroundLoop {
                return
            } catch {
                // Catalog away: say so once in a while, and wait longer between tries (up to 30 s).
                failures += 1
                if failures == 1 || failures % 60 == 0 {
                    logger.warning("Shelf publishing failed", metadata: ["error": "\(String(reflecting: error))", "failures": "\(failures)"])
                }
                await PeriodicJob.pause(for: .milliseconds(min(30_000, 250 << min(failures, 7))))
            }
        }
    }

    /// One pass over the patrons whose shelf changed. Returns how many shelves it delivered.
    @discardableResult
    func runOnce() async throws -> Int {
        var delivered = 0
        for patronID in try await shelves.changedPatrons(limit: 500, logger: logger) {
            if try await publish(patronID, wait: false, logger: logger) != nil { delivered += 1 }
        }
        return delivered
    }

    /// Reads the patron's shelf and sends it to catalog; returns the version sent. Nil when another replica is
    /// reading it (`wait` false).
    @discardableResult
    func publish(_ patronID: UUID, wait: Bool, logger: Logger) async throws -> Int64? {
        guard let reading = try await shelves.read(patronID: patronID, wait: wait, logger: logger) else { return nil }
        let path = InternalRoute.shelfCopy(patronID).path
        _ = try await catalog.send(method: .PUT, path: path, body: try WireFormat.encode(reading.copy), logger: logger)
        try await shelves.delivered(reading, patronID: patronID, logger: logger)
        return reading.copy.version
    }
}
