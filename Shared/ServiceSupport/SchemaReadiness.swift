import ServiceLifecycle
import Synchronization

/// Whether this process has applied its migrations. A service's background jobs (expiry, outbox delivery) start
/// together with its HTTP server, which migrates before it listens; they wait for this instead of querying
/// tables that a fresh database does not have yet.
public final class SchemaReadiness: Sendable {
    private let ready: Atomic<Bool>

    public init(ready: Bool = false) { self.ready = Atomic(ready) }

    /// For jobs run against a database that is already migrated (tests).
    public static var migrated: SchemaReadiness { SchemaReadiness(ready: true) }

    public func markReady() { ready.store(true, ordering: .releasing) }

    /// Returns once the schema is ready; throws `CancellationError` if the task is cancelled first (a service
    /// whose migrations failed is shutting down).
    public func wait() async throws {
        while !ready.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(50)) }
    }

    /// `wait`, ended by graceful shutdown too: false when shutdown or cancellation came first (a background job then
    /// returns without a pass).
    public func waitUnlessShuttingDown() async -> Bool {
        (try? await cancelWhenGracefulShutdown { try await self.wait() }) != nil
    }
}
