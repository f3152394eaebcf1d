import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The library's identity provider for the tests: `Tests/tools/oidc_provider.py` (a real OpenID Connect provider,
/// oidc-provider-mock on Authlib) on loopback, PKCE and nonces required, with two users whose `patron_type` claim
/// names an adult and a child (`Juvenile`); stopped and started again for the outage tests (a new signing key then).
public final class OIDCTestServer: @unchecked Sendable {
    public static let clientID = "bookmobile"
    public static let clientSecret = "bookmobile-client-secret"
    /// Subjects of the provider's users.
    public static let adult = "oidc-ann"
    public static let child = "oidc-kit"

    public private(set) var port = 0
    private var process: ChildProcess?
    private let log = FileManager.default.temporaryDirectory.appendingPathComponent("bookmobile-oidc-\(UUID().uuidString.prefix(8)).log")

    public init() {}

    public var issuer: String { "http://127.0.0.1:\(port)" }

    /// Starts the provider (on the port it had before, after `stop()`), and returns once it answers.
    public func start() async throws {
        let ready = log.appendingPathExtension("port")
        try? FileManager.default.removeItem(at: ready)
        process = try ChildProcess(
            TestTools.python,
            [TestTools.directory.appendingPathComponent("oidc_provider.py").path, "--port", "\(port)", "--ready-file", ready.path],
            environment: ProcessInfo.processInfo.environment,
            output: log
        )
        try await eventually(timeout: .seconds(30), "the OIDC provider did not start: \(output)") {
            guard let text = try? String(contentsOf: ready, encoding: .utf8), let number = Int(text) else { return false }
            port = number
            return true
        }
    }

    public func stop() async {
        process?.signal(SIGTERM)
        _ = await process?.wait()
        process = nil
    }

    public var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// The patron service's configuration for this provider (its `patron_type` claim, `Juvenile` a child's).
    public var configuration: [String: String] {
        [
            "PATRON_AUTH": "local,oidc", "OIDC_ISSUER": issuer, "OIDC_CLIENT_ID": Self.clientID, "OIDC_CLIENT_SECRET": Self.clientSecret,
            "OIDC_PATRON_TYPE_CLAIM": "patron_type", "PATRON_TYPE_NAMES": "juvenile=child", "OIDC_APP_REDIRECTS": "org.example.reader:/",
        ]
    }
}
