import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceLifecycle
import ServiceSupport
import Synchronization

/// Where catalog's public reads (feeds, search, book detail, downloads' and publications' lookups) go: a PostgreSQL
/// streaming replica of `CATALOG_READ_DATABASE_URLS` when one is usable, else the primary.
///
/// A replica is usable when it answered the last check (every `checkInterval`, within `checkTimeout`), lags the primary
/// by at most `maxLagBytes` of log, and has replayed past the last write any catalog replica announced
/// (read-your-writes: a write request's position is announced on `catalog_writes` before it is answered,
/// `WritesAnnouncedMiddleware`, and heard by every catalog replica from the primary). Until a replica has caught up,
/// reads go to the primary. A replica that stops answering has its pool closed and made anew, so that reads that were
/// waiting for one of its connections fail at once instead of waiting for the pool to give up; a read a replica could
/// not answer so is asked of the primary (`BookPostgresRepository.read`), and the replica left out until a check finds
/// it usable again.
final class ReadReplicas: Service, Sendable {
    let primary: PostgresClient
    let urls: [String]
    let pool: DatabasePool
    let maxLagBytes: UInt64
    let checkInterval: Duration
    let checkTimeout: Double
    let logger: Logger
    private let repository = ReplicationPostgresRepository()

    private struct State {
        /// The newest write announced (this process's own at once, others' when heard).
        var fence = WALPosition.zero
        /// Each replica's pool (made anew when the replica stops answering).
        var clients: [PostgresClient]
        /// Each replica's replay position at its last check; nil while it is down, lagging too far or no replica.
        var replayed: [WALPosition?]
        var next = 0
        /// Announcements may have been missed (the listening connection broke, an announcement failed): the next
        /// check takes the primary's position as the fence.
        var fenceAtNextCheck = false
        /// The announcements are being heard, and the fence was raised to the primary's position once they were: a
        /// write announced before this replica listened (another catalog's, before this one started) is behind the
        /// fence too. Until then every read goes to the primary.
        var listening = false
    }
    private let state: Mutex<State>
    /// The reads under way on each replica (by index), ended when its pool is closed (`read(onReplica:_:_:)`).
    private let readsUnderWay = WorkUnderWay<Int>()
    /// Reads sent to a replica and to the primary since start-up (figures for tests).
    let readsOnReplicas = Atomic(0)
    let readsOnPrimary = Atomic(0)
    /// The newest write this catalog knows of (figures for tests: another catalog's write is known once heard).
    var fence: WALPosition { state.withLock { $0.fence } }

    init(
        primary: PostgresClient,
        replicaURLs: [String],
        pool: DatabasePool,
        maxLagBytes: UInt64,
        checkInterval: Duration,
        logger: Logger
    ) throws {
        self.primary = primary
        self.urls = replicaURLs
        self.pool = pool
        self.maxLagBytes = maxLagBytes
        self.checkInterval = checkInterval
        checkTimeout = max(Double(checkInterval.components.seconds) + Double(checkInterval.components.attoseconds) / 1e18, 0.2) * 5
        self.logger = logger
        let clients = try replicaURLs.map { try Self.client($0, pool: pool, logger: logger) }
        state = Mutex(State(clients: clients, replayed: Array(repeating: nil, count: replicaURLs.count)))
    }

    private static func client(_ url: String, pool: DatabasePool, logger: Logger) throws -> PostgresClient {
        PostgresClient(configuration: try DatabaseURL.configuration(url, pool: pool), backgroundLogger: logger)
    }

    /// Where the next read goes: a usable replica (and its index), else the primary (no index).
    func pick() -> (client: PostgresClient, replica: Int?) {
        let replica = state.withLock { state -> (PostgresClient, Int)? in
            guard state.listening else { return nil }
            // Round-robin: the first usable replica from the one after the last chosen.
            let count = state.clients.count
            for step in 1...count {
                let index = (state.next + step) % count
                if let replayed = state.replayed[index], replayed >= state.fence {
                    state.next = index
                    return (state.clients[index], index)
                }
            }
            return nil
        }
        guard let (client, index) = replica else { return (onPrimary(), nil) }
        readsOnReplicas.add(1, ordering: .relaxed)
        return (client, index)
    }

    /// `body` on replica `index`'s pool, as `pick` gave it; `ReplicaClosed` at once when that pool is closed while the
    /// read runs. Closing a pool did not end every query under way on it: a read waited on one for good (a request of a
    /// full test run's, unanswered after 12 minutes, while a loaded replica's checks timed out and its pool was closed
    /// and made anew again and again).
    func read<T: Sendable>(
        onReplica index: Int,
        _ client: PostgresClient,
        _ body: @escaping @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        try await readsUnderWay.run(index, cutOffError: { ReplicaClosed() }, { try await body(client) })
    }

    /// How many reads are under way on replicas (figures for tests).
    var readsUnderWayOnReplicas: Int { readsUnderWay.count }

    /// A read ended because its replica's pool was closed under it (asked of the primary instead).
    struct ReplicaClosed: Error, CustomStringConvertible {
        var description: String { "the read replica's pool was closed" }
    }

    /// The primary, for a read (counted).
    func onPrimary() -> PostgresClient {
        readsOnPrimary.add(1, ordering: .relaxed)
        return primary
    }

    /// A read on replica `index` could not reach it: no read goes there until its next check finds it usable.
    func leaveOut(_ index: Int, error: any Error) {
        let wasUsable = state.withLock { state in
            defer { state.replayed[index] = nil }
            return state.replayed[index] != nil
        }
        if wasUsable { log(usable: false, index: index, reason: "a read could not reach it: \(String(reflecting: error))") }
    }

    /// After a write: the primary's position becomes the fence here at once, and at every other catalog replica when
    /// it hears the announcement.
    func announceWrite(logger: Logger) async {
        do {
            if let position = try await repository.primaryPosition(primary, announce: true, logger: logger) { raiseFence(position) }
        } catch {
            logger.warning("Write not announced to read replicas", metadata: ["error": "\(String(reflecting: error))"])
            missedAnnouncements()
        }
    }

    /// No replica until the next check has seen it past the primary's position then.
    private func missedAnnouncements() {
        state.withLock { state in
            state.replayed = state.replayed.map { _ in nil }
            state.fenceAtNextCheck = true
        }
    }

    private func raiseFence(_ position: WALPosition) {
        state.withLock { state in if position > state.fence { state.fence = position } }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                for index in self.urls.indices { group.addTask { await self.supervise(index) } }
                group.addTask { await self.listen() }
            }
        }
    }

    /// Runs replica `index`'s pool and checks it; once a replica that was in use stops answering, its pool is closed
    /// (failing the reads waiting for it) and a new one made.
    private func supervise(_ index: Int) async {
        while !Task.isCancelled {
            let client = state.withLock { $0.clients[index] }
            readsUnderWay.reopen(index)
            await withDiscardingTaskGroup { group in
                group.addTask { await client.run() }
                await check(index, client)
                // Left out before its pool closes: a read picking it now would only meet a pool shutting down. The reads
                // under way on it are ended now, and asked of the primary.
                state.withLock { $0.replayed[index] = nil }
                readsUnderWay.close(index)
                group.cancelAll()
            }
            state.withLock { state in
                if let fresh = try? Self.client(urls[index], pool: pool, logger: logger) { state.clients[index] = fresh }
            }
        }
    }

    /// Checks the replica every `checkInterval`; returns when it stopped answering after having answered.
    private func check(_ index: Int, _ client: PostgresClient) async {
        var wasUsable = false
        var answered = false
        while !Task.isCancelled {
            let primaryPosition = try? await withTimeout(seconds: checkTimeout) {
                try await self.repository.primaryPosition(self.primary, announce: false, logger: self.logger)
            }
            if let primaryPosition {
                state.withLock { state in
                    if state.fenceAtNextCheck, primaryPosition > state.fence { state.fence = primaryPosition }
                    state.fenceAtNextCheck = false
                }
            }
            var replayed: WALPosition?
            var reason = ""
            do {
                replayed = try await withTimeout(seconds: checkTimeout) { try await self.repository.replayPosition(client, logger: self.logger) }
                if replayed == nil { reason = "not a streaming replica" }
                answered = true
            } catch {
                reason = "unreachable: \(String(reflecting: error))"
                if answered {
                    log(usable: false, index: index, reason: reason)
                    return
                }
            }
            if let position = replayed, let primaryPosition, primaryPosition.value > position.value,
                primaryPosition.value - position.value > maxLagBytes
            {
                reason = "lags \(primaryPosition.value - position.value) bytes behind the primary"
                replayed = nil
            }
            if primaryPosition == nil { replayed = nil }  // no primary to compare with: no word on the lag
            state.withLock { $0.replayed[index] = replayed }
            if (replayed != nil) != wasUsable {
                wasUsable = replayed != nil
                log(usable: wasUsable, index: index, reason: reason)
            }
            try? await Task.sleep(for: checkInterval)
        }
    }

    private func log(usable: Bool, index: Int, reason: String) {
        if usable {
            logger.info("Read replica in use", metadata: ["replica": "\(Self.describe(urls[index]))"])
        } else {
            logger.warning(
                "Read replica left out; the primary answers",
                metadata: ["replica": "\(Self.describe(urls[index]))", "reason": "\(reason)"]
            )
        }
    }

    /// The writes other catalog replicas announce, heard from the primary; reconnects after a failure (meanwhile
    /// reads go to the primary).
    private func listen() async {
        while !Task.isCancelled {
            do {
                try await primary.withConnection { connection in
                    try await connection.listen(on: ReplicationPostgresRepository.channel) { notifications in
                        // Listening now: every write announced from here on is heard, and every earlier one is behind
                        // the primary's position read after this.
                        let position = try await repository.primaryPosition(primary, announce: false, logger: logger)
                        state.withLock { state in
                            if let position, position > state.fence { state.fence = position }
                            state.listening = true
                        }
                        for try await notification in notifications {
                            if let position = WALPosition(notification.payload) { raiseFence(position) }
                        }
                    }
                }
            } catch {
                if Task.isCancelled { break }
                missedAnnouncements()
            }
            state.withLock { $0.listening = false }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// A database URL without its credentials, for the log.
    static func describe(_ url: String) -> String {
        guard let parts = URLComponents(string: url) else { return "(a database URL)" }
        return "\(parts.host ?? "")\(parts.port.map { ":\($0)" } ?? "")\(parts.path)"
    }
}
