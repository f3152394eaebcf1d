import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Defaults that cannot ship unsafe: the published example secrets refused outside development, and catalog and
/// patron (which trust the service token) reachable only on loopback unless `BIND_ADDRESS` says otherwise.
@Suite struct DeploymentDefaultsTests {
    @Test(arguments: ["catalog", "patron", "gateway"])
    func aServiceRefusesAPublishedSecretOutsideDevelopment(executable: String) async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("bookmobile-secrets-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("output.log")
        // The secrets `make run` uses, as a library that copied them would run them.
        let environment = [
            "PATH": "/usr/bin:/bin", "SERVICE_TOKEN": "dev-service-token-change-me", "JWT_SECRET": "dev-jwt-secret-change-me-please-0123456789",
            "ADMIN_TOKEN": "dev-admin-token", "CATALOG_PORT": "\(try FreePort.next())", "PATRON_PORT": "\(try FreePort.next())",
            "GATEWAY_PORT": "\(try FreePort.next())", "CATALOG_DATABASE_URL": "postgres://postgres@127.0.0.1:1/none",
            "PATRON_DATABASE_URL": "postgres://postgres@127.0.0.1:1/none", "BLOB_DIR": folder.path,
        ]
        let child = try ChildProcess(
            Stack.binDirectory.appendingPathComponent(executable).path,
            executable == "catalog" ? ["serve"] : [],
            environment: environment,
            output: output
        )
        let status = await child.wait()
        let said = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        #expect(status == 78, "exit status \(status): \(said.suffix(2000))")
        #expect(said.contains("is a published example value"), "\(said.suffix(2000))")
        #expect(said.contains("BOOKMOBILE_ENV=development"), "the message says how to accept them in development")
    }

    /// This machine's addresses other than loopback (IPv4), where another machine on the network would connect.
    static let outsideAddresses: [String] = {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var addresses: [String] = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) {
                var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
                if getnameinfo(address, socklen_t(MemoryLayout<sockaddr_in>.size), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 {
                    let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    if !text.hasPrefix("127.") { addresses.append(text) }
                }
            }
            entry = current.pointee.ifa_next
        }
        return addresses
    }()

    /// Whether a TCP connection to `address:port` is accepted.
    static func accepts(_ address: String, _ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, address, &target.sin_addr)
        return withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    @Test(.enabled(if: !outsideAddresses.isEmpty, "this machine has no address besides loopback"))
    func withoutBindAddressEveryServiceListensOnLoopbackOnly() async throws {
        try await Stack.run { stack in
            for service in [Stack.Service.catalog, .patron, .gateway] {
                let port = stack.ports[service]!
                #expect(Self.accepts("127.0.0.1", port), "\(service) answers on loopback")
                for address in Self.outsideAddresses {
                    #expect(!Self.accepts(address, port), "\(service) must not be reachable on \(address):\(port)")
                }
            }
        }
        // The same check sees a service that listens on every interface (a container's BIND_ADDRESS).
        try await Stack.run(["BIND_ADDRESS": "0.0.0.0"]) { stack in
            #expect(Self.accepts(Self.outsideAddresses[0], stack.ports[.gateway]!))
        }
    }
}
