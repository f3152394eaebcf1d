import Foundation
import Hummingbird
import Logging
import PostgresSupport
import ServiceSupport
import TestSupport
import Testing

@testable import CatalogService
@testable import GatewayService
@testable import PatronService

/// The OpenAPI document the gateway serves is written by hand: every public route of catalog and patron must be in it
/// with its method, and it must list nothing that no service answers.
@Suite struct OpenAPICoverageTests {
    /// `METHOD /path` with every path parameter written `{}`.
    static func normalised(_ method: String, _ path: String) -> String {
        "\(method.uppercased()) " + path.replacing(#/\{[^}]*\}|\*\*/#, with: "{}")
    }

    /// The operations the document lists.
    static func documented() -> Set<String> {
        var operations = Set<String>()
        var path: String?
        for line in OpenAPIDocument.yaml.split(separator: "\n").map(String.init) {
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if !line.hasPrefix(" ") {
                path = nil
            } else if let path, let method = ["get", "put", "post", "patch", "delete"].first(where: { line == "    \($0):" }) {
                operations.insert(normalised(method, path))
            }
        }
        return operations
    }

    /// The routes (method, path pattern) catalog and patron register, `/internal/` ones included.
    static func registered() async throws -> (catalog: [(String, String)], patron: [(String, String)]) {
        let config = TestConfig.base(["BLOB_DIR": FileManager.default.temporaryDirectory.appendingPathComponent("openapi-blobs").path])
        let parts = try CatalogDependencies(config: config)
        let catalog = catalogRouter(parts)
        // Listing routes runs no query: catalog's (never connected) client serves patron's routes here.
        let rules = CirculationRules(loanPeriod: 1, offerPeriod: 1, publicURL: "")
        let settings = try PatronSettings(config: config)
        let circulation = CirculationPostgresRepository(client: parts.postgres, rules: rules)
        let shelves = ShelfPublisher(
            shelves: ShelfPostgresRepository(client: parts.postgres, circulation: circulation),
            catalog: InternalClient(baseURLs: [], token: .init("")),
            interval: 1,
            schema: SchemaReadiness(),
            logger: Logger(label: "openapi")
        )
        let patron = await patronRouter(
            settings: settings,
            postgres: parts.postgres,
            circulation: circulation,
            throttle: SignInThrottlePostgresRepository(client: parts.postgres, policy: settings.signInPolicy),
            shelves: shelves
        )
        return (
            catalog.routes.map { ($0.method.rawValue, $0.path.description) }, patron.routes.map { ($0.method.rawValue, $0.path.description) }
        )
    }

    /// The operations catalog and patron answer, without `/internal/` ones (never exposed by the gateway).
    static func served() async throws -> Set<String> {
        let (catalog, patron) = try await registered()
        return Set((catalog + patron).filter { !$0.1.hasPrefix("/internal/") }.map { normalised($0.0, $0.1) })
    }

    @Test func everyPublicRouteIsDocumentedAndNothingElse() async throws {
        let documented = Self.documented()
        let served = try await Self.served()
        #expect(documented.count > 40)
        #expect(served.subtracting(documented).sorted() == [], "routes the document lacks")
        #expect(documented.subtracting(served).sorted() == [], "documented operations no service answers")
    }
}
