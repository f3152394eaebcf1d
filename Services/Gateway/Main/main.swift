import GatewayService
import ServiceSupport

let app = try await buildGatewayApplication(config: ServiceConfig())
try await app.runService()
