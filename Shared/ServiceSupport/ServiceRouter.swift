import Hummingbird
import Prometheus

/// The router every service starts from: request ids, an access log, metrics and problem documents on every route, plus
/// `/health/live`, `/health/ready` and `/metrics`.
public enum ServiceRouter {
    public static func make<Context: RequestContext>(
        context: Context.Type,
        metricsAccess: HealthRoutes<Context>.MetricsAccess = .open,
        readiness: @escaping HealthRoutes<Context>.ReadinessCheck
    ) -> Router<Context> {
        let router = Router(context: Context.self)
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: AccessLogMiddleware())
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: ProblemMiddleware())
        HealthRoutes(registry: Observability.bootstrap(), metricsAccess: metricsAccess, readiness: readiness).add(to: router)
        return router
    }
}
