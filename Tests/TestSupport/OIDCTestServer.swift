import Foundation

/// The library's identity provider for the tests: `Tests/tools/oidc_provider.py` (a real OpenID Connect provider,
/// oidc-provider-mock on Authlib) on loopback, PKCE and nonces required, with two users whose `patron_type` claim
/// names an adult and a child (`Juvenile`); stopped and started again for the outage tests (a new signing key then).
public final class OIDCTestServer: @unchecked Sendable {
    public static let clientID = "bookmobile"
    public static let clientSecret = "bookmobile-client-secret"
    /// Subjects of the provider's users.
    public static let adult = "oidc-ann"
    public static let child = "oidc-kit"

    private let server = LoopbackToolServer(script: "oidc_provider.py", name: "oidc")
    public var port: Int { server.port }

    public init() {}

    public var issuer: String { "http://127.0.0.1:\(port)" }

    /// Starts the provider (on the port it had before, after `stop()`), and returns once it answers.
    public func start() async throws { try await server.start() }

    public func stop() async { await server.stop() }

    public var output: String { server.output }

    /// The patron service's configuration for this provider (its `patron_type` claim, `Juvenile` a child's).
    public var configuration: [String: String] {
        [
            "PATRON_AUTH": "local,oidc", "OIDC_ISSUER": issuer, "OIDC_CLIENT_ID": Self.clientID, "OIDC_CLIENT_SECRET": Self.clientSecret,
            "OIDC_PATRON_TYPE_CLAIM": "patron_type", "PATRON_TYPE_NAMES": "juvenile=child", "OIDC_APP_REDIRECTS": "org.example.reader:/",
        ]
    }
}
