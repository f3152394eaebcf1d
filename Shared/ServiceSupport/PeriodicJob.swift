import Foundation
import Logging
import ServiceLifecycle

/// The loop of a service's background jobs: once the schema is ready, runs `pass` every `interval` until graceful
/// shutdown (which lets a pass under way finish); a failed pass, or one still running after `deadline` seconds (`withTimeout`), is logged with `failure` and
/// the next one comes on time.
public enum PeriodicJob {
    public static func run(
        every interval: TimeInterval,
        after schema: SchemaReadiness,
        logger: Logger,
        failure: Logger.Message,
        deadline: TimeInterval = 600,
        _ pass: @escaping @Sendable () async throws -> Void
    ) async throws {
        // Graceful shutdown ends the waits, never a pass under way: a pass cancelled inside its transaction could
        // leave its pooled connection waiting forever, and the database client's shutdown with it (suspected cause of
        // the test suite's stalls, docs/PERFORMANCE.md session 20).
        guard await schema.waitUnlessShuttingDown() else { return }
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await withTimeout(seconds: deadline, pass)
            } catch let error where error.stopsBackgroundLoop {
                return
            } catch {
                logger.warning(failure, metadata: ["error": "\(String(reflecting: error))"])
            }
            await pause(for: .milliseconds(Int(interval * 1000)))
        }
    }

    /// A background job's wait between passes: `duration`, or until graceful shutdown (or cancellation) comes.
    public static func pause(for duration: Duration) async {
        try? await cancelWhenGracefulShutdown { try await Task.sleep(for: duration) }
    }
}
