import Foundation
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

    /// Every secret value the repository publishes (`make run`'s defaults, `.env.example`, the Kubernetes example) is
    /// one that the services refuse outside development: a new example value cannot slip past the list.
    @Test func everySecretTheRepositoryPublishesIsRefused() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
        var published: [String: String] = [:]
        for (file, pattern) in [
            (".env.example", #"^(SERVICE_TOKEN|JWT_SECRET|ADMIN_TOKEN)=(\S+)$"#),
            ("scripts/run.sh", #"(SERVICE_TOKEN|JWT_SECRET|ADMIN_TOKEN):-([^}]+)\}"#),
            ("deploy/k8s/bookmobile.yaml", #"^\s+(SERVICE_TOKEN|JWT_SECRET|ADMIN_TOKEN): (\S+)$"#),
        ] {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            let expression = try NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
            let matches = expression.matches(in: text, range: NSRange(text.startIndex..., in: text))
            #expect(matches.count == 3, "\(file): the three secrets")
            for match in matches {
                let key = String(text[Range(match.range(at: 1), in: text)!])
                published["\(file) \(key)"] = String(text[Range(match.range(at: 2), in: text)!])
            }
        }
        for (place, value) in published {
            #expect(PublishedSecrets.contains(value), "\(place) = \(value) is accepted outside development")
        }
    }
}
