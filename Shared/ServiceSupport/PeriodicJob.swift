import Foundation
import Logging
import ServiceLifecycle

/// The loop of a service's background jobs: once the schema is ready, runs `pass` every `interval` until graceful
/// shutdown; a failed pass, or one still running after `deadline` seconds (`withTimeout`), is logged with `failure` and
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
        try await cancelWhenGracefulShutdown {
            do { try await schema.wait() } catch { return }
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                do {
                    try await withTimeout(seconds: deadline, pass)
                } catch let error where error.stopsBackgroundLoop {
                    return
                } catch {
                    logger.warning(failure, metadata: ["error": "\(String(reflecting: error))"])
                }
                try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
            }
        }
    }
}
