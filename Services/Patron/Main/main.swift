import PatronService
import ServiceSupport

let config = ServiceConfig()
let app = try await exitingOnInvalidConfiguration("patron") { try await buildPatronApplication(config: config) }
try await app.runUntilTerminated(config: config)
