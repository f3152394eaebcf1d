import PatronService
import ServiceSupport

let app = try await buildPatronApplication(config: ServiceConfig())
try await app.runService()
