import Foundation
import Logging
import Metrics
import Prometheus

/// Process-wide logging and metrics set-up. Both backends can be installed once per process only, so tests
/// that build many applications share them.
public enum Observability {
    private static let bootstrapped: PrometheusCollectorRegistry = {
        LoggingSystem.bootstrap { label in LogfmtLogHandler(label: label) }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    /// Installs the logfmt log handler and the Prometheus metrics factory (once), and returns the registry that
    /// `/metrics` renders.
    @discardableResult
    public static func bootstrap() -> PrometheusCollectorRegistry { bootstrapped }

    /// A logger for `service` at the level named by `LOG_LEVEL` (default `info`).
    public static func logger(service: String, config: ServiceConfig) -> Logger {
        bootstrap()
        var logger = Logger(label: service)
        logger.logLevel = config.string("LOG_LEVEL").flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? .info
        logger[metadataKey: "service"] = "\(service)"
        return logger
    }
}
