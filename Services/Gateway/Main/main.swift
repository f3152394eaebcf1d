import GatewayService
import ServiceSupport

let config = ServiceConfig()
let app = try await exitingOnInvalidConfiguration("gateway") { try await buildGatewayApplication(config: config) }
try await app.runUntilTerminated(config: config)
