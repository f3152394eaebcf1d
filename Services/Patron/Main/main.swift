import PatronService
import ServiceSupport

let config = ServiceConfig()
let app = try await buildPatronApplication(config: config)
try await app.runUntilTerminated(config: config)
