import ServiceSupport
import Testing

@Suite struct ServiceConfigTests {
    @Test(arguments: [
        "dev-service-token-change-me", "dev-admin-token", "dev-jwt-secret-change-me-please-0123456789", "change-me", "My-Change-Me-Token",
    ])
    func aPublishedSecretIsRefusedOutsideDevelopment(value: String) throws {
        for environment in [[:], ["BOOKMOBILE_ENV": "production"], ["BOOKMOBILE_ENV": "Development "]] {
            let config = ServiceConfig(environment: environment, overrides: ["SERVICE_TOKEN": value])
            #expect(throws: ServiceConfig.Invalid.self) { try config.secret("SERVICE_TOKEN") }
        }
        let development = ServiceConfig(environment: ["BOOKMOBILE_ENV": "development"], overrides: ["SERVICE_TOKEN": value])
        #expect(try development.secret("SERVICE_TOKEN") == value)
    }

    @Test func aSecretOfTheLibrarysOwnIsAccepted() throws {
        let config = ServiceConfig(environment: [:], overrides: ["ADMIN_TOKEN": "4f1c2a9e0b7d"])
        #expect(try config.secret("ADMIN_TOKEN") == "4f1c2a9e0b7d")
        #expect(throws: ServiceConfig.Invalid.self) { try ServiceConfig(environment: [:]).secret("ADMIN_TOKEN") }
    }

    @Test func servicesListenOnLoopbackUnlessBindAddressIsSet() {
        #expect(ServiceConfig(environment: [:]).bindAddress == "127.0.0.1")
        #expect(ServiceConfig(environment: ["BIND_ADDRESS": "0.0.0.0"]).bindAddress == "0.0.0.0")
    }
}
