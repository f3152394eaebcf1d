import Hummingbird
import Logging
import NIOCore
import Prometheus
import Shared

/// `/health/live`, `/health/ready` and `/metrics`, the same in every service.
public struct HealthRoutes<Context: RequestContext>: Sendable {
    /// Checks the service's dependencies; throws when one is not ready.
    public typealias ReadinessCheck = @Sendable (Logger) async throws -> Void

    let readiness: ReadinessCheck
    let registry: PrometheusCollectorRegistry

    public init(registry: PrometheusCollectorRegistry, readiness: @escaping ReadinessCheck) {
        self.registry = registry
        self.readiness = readiness
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
        router.get("/metrics") { _, _ in
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
