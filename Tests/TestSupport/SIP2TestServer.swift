import Foundation

/// The library's ILS for the tests: `Tests/tools/sip2_server.py` (pysip2's SIP2 server) on loopback, with its patrons
/// (a valid card, one blocked for fines, an expired one, a child's and a teen's), stopped and started again on the
/// same port for the outage tests.
public final class SIP2TestServer: @unchecked Sendable {
    public static let login = "bookmobile"
    public static let password = "terminal-secret"
    /// Card and PIN of each test patron (`sip2_server.py`'s `PATRONS`).
    public static let valid = ("23330000000001", "1234")
    public static let blockedForFines = ("23330000000002", "2222")
    public static let expired = ("23330000000003", "3333")
    public static let child = ("23330000000004", "4444")
    public static let teen = ("23330000000005", "5555")

    private let server = LoopbackToolServer(script: "sip2_server.py", name: "sip2")
    public var port: Int { server.port }

    /// A certificate and key (PEM) to speak TLS with; nil: plain TCP.
    let tls: (certificate: URL, key: URL)?

    public init(tls: (certificate: URL, key: URL)? = nil) { self.tls = tls }

    /// A self-signed certificate for 127.0.0.1 and localhost (openssl), and its key.
    public static func selfSignedCertificate() async throws -> (certificate: URL, key: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bookmobile-sip2-tls-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (certificate, key) = (folder.appendingPathComponent("ils.pem"), folder.appendingPathComponent("ils.key"))
        let made = try await ChildProcess.run([
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key.path, "-out", certificate.path,
        ])
        guard made.status == 0 else { throw ChildProcess.Failure(description: "openssl: \(String(decoding: made.output, as: UTF8.self))") }
        return (certificate, key)
    }

    /// Starts the server (on the port it had before, after `stop()`), and returns once it accepts connections.
    public func start() async throws {
        try await server.start(
            ["--login", Self.login, "--password", Self.password] + (tls.map { ["--tls-cert", $0.certificate.path, "--tls-key", $0.key.path] } ?? [])
        )
    }

    public func stop() async { await server.stop() }

    /// What the server logged (its exchanges: never a PIN).
    public var output: String { server.output }

    /// The patron service's configuration for this ILS.
    public var configuration: [String: String] {
        [
            "PATRON_AUTH": "local,sip2", "SIP2_HOST": "127.0.0.1", "SIP2_PORT": "\(port)", "SIP2_LOGIN": Self.login, "SIP2_PASSWORD": Self.password,
            "SIP2_INSTITUTION": "bookmobile-test", "SIP2_TIMEOUT": "15",
        ]
    }
}
