import Hummingbird
import Logging
import NIOCore
import Prometheus
import Shared

/// `/health/live`, `/health/ready` and `/metrics`, the same in every service.
public struct HealthRoutes<Context: RequestContext>: Sendable {
    /// Checks the service's dependencies; throws when one is not ready.
    public typealias ReadinessCheck = @Sendable (Logger) async throws -> Void

    /// Who may read `/metrics`: anyone who reaches the service (catalog and patron, which only the other services
    /// reach), or only a request with `Authorization: Bearer <token>` (the public gateway: `METRICS_TOKEN`; without
    /// one, nobody).
    public enum MetricsAccess: Sendable {
        case open
        case bearer(String?)
    }

    let readiness: ReadinessCheck
    let registry: PrometheusCollectorRegistry
    let metricsAccess: MetricsAccess

    public init(registry: PrometheusCollectorRegistry, metricsAccess: MetricsAccess = .open, readiness: @escaping ReadinessCheck) {
        self.registry = registry
        self.metricsAccess = metricsAccess
        self.readiness = readiness
    }

    /// Whether `request` may read the metrics.
    func mayReadMetrics(_ request: Request) -> Bool {
        guard case .bearer(let token) = metricsAccess else { return true }
        guard let token else { return false }
        return ServiceToken(token).matches(BasicAuthorization.bearer(request.headers[.authorization]))
    }

    public func add(to router: Router<Context>) {
        router.get("/health/live") { _, _ in try JSONMessages.response(["status": "live"]) }
        router.get("/health/ready") { _, context in
            do {
                try await readiness(context.logger)
                return try JSONMessages.response(["status": "ready"])
            } catch {
                context.logger.warning("Not ready", metadata: ["error": "\(error)"])
                return Problem(status: 503, slug: "not-ready", title: "Service unavailable", detail: "A dependency is not reachable").response()
            }
        }
        router.get("/metrics") { request, _ in
            guard mayReadMetrics(request) else {
                return Problem(status: 401, slug: "metrics-token", title: "Metrics need the metrics token").response()
            }
            var buffer = [UInt8]()
            buffer.reserveCapacity(16_384)
            registry.emit(into: &buffer)
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(bytes: buffer))
            )
        }
    }
}
