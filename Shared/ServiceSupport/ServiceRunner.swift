import AsyncHTTPClient
import Hummingbird
import ServiceLifecycle

extension ApplicationProtocol {
    /// Runs the service until SIGTERM or SIGINT, then shuts it down gracefully: requests in flight finish and
    /// background jobs stop. Past `SHUTDOWN_TIMEOUT` (default 20 s, inside Kubernetes' 30 s grace period) what is
    /// left is cancelled, and a task that still ignores cancellation 5 s later ends the process with an error,
    /// so that nothing can keep a stopped service alive.
    public func runUntilTerminated(config: ServiceConfig) async throws {
        // Read when the first call to another service is made (`HTTPClient.service`): refused here, not ignored there.
        _ = try HTTPClient.connectTimeout(config)
        var configuration = ServiceGroupConfiguration(services: [self], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(try config.duration("SHUTDOWN_TIMEOUT", default: 20))
        configuration.maximumCancellationDuration = .seconds(5)
        try await ServiceGroup(configuration: configuration).run()
    }
}
