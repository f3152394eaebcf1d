import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceSupport
import Shared
import TestSupport
import Testing

@testable import GatewayService

/// The client's address behind proxies (`TRUSTED_PROXIES`), and what reaches the services of the proxy headers.
@Suite struct TrustedProxiesTests {
    @Test func cidrBlocksMatchTheirAddressesOnly() throws {
        let proxies = try TrustedProxies(parsing: "10.0.0.0/8, 192.168.1.7, 2001:db8::/32")
        #expect(proxies.isTrusted("10.200.3.4"))
        #expect(!proxies.isTrusted("11.0.0.1"))
        #expect(proxies.isTrusted("192.168.1.7") && !proxies.isTrusted("192.168.1.8"))
        #expect(proxies.isTrusted("2001:db8:ffff::1") && !proxies.isTrusted("2001:db9::1"))
        #expect(proxies.isTrusted("::ffff:10.1.1.1"), "an IPv4-mapped address is its IPv4 address")
        #expect(!proxies.isTrusted("not an address"))
        #expect(throws: TrustedProxies.Invalid.self) { try TrustedProxies(parsing: "10.0.0.0/33") }
        #expect(throws: TrustedProxies.Invalid.self) { try TrustedProxies(parsing: "example.org") }
        #expect(try TrustedProxies(parsing: nil).blocks.isEmpty)
    }

    @Test func theRightmostAddressThatIsNotATrustedProxyIsTheClient() throws {
        let proxies = try TrustedProxies(parsing: "10.0.0.0/8")
        let forwarded: HTTPFields = [.xForwardedFor: "6.6.6.6, 203.0.113.9, 10.0.0.2"]
        #expect(proxies.clientAddress(peer: "10.0.0.1", headers: forwarded) == "203.0.113.9", "the client cannot choose the leftmost")
        #expect(proxies.clientAddress(peer: "198.51.100.4", headers: forwarded) == "198.51.100.4", "an untrusted peer's header counts for nothing")
        #expect(proxies.clientAddress(peer: "10.0.0.1", headers: [:]) == "10.0.0.1")
        #expect(proxies.clientAddress(peer: "10.0.0.1", headers: [.xForwardedFor: "10.0.0.3, 10.0.0.2"]) == "10.0.0.3")
        #expect(proxies.clientAddress(peer: "10.0.0.1", headers: [.xForwardedFor: "garbage, 10.0.0.2"]) == "10.0.0.2")
        #expect(try TrustedProxies(parsing: "").clientAddress(peer: "127.0.0.1", headers: forwarded) == "127.0.0.1")
        let rfc7239: HTTPFields = [.forwarded: #"for=192.0.2.60;proto=http, for="[2001:db8:cafe::17]:4711""#]
        let forwardedProxies = try TrustedProxies(parsing: "10.0.0.0/8", header: "Forwarded")
        #expect(forwardedProxies.clientAddress(peer: "10.0.0.1", headers: rfc7239) == "2001:db8:cafe::17")
        #expect(forwardedProxies.clientAddress(peer: "10.0.0.1", headers: [.forwarded: "for=198.51.100.17:8080"]) == "198.51.100.17")
        #expect(throws: TrustedProxies.Invalid.self) { try TrustedProxies(parsing: "10.0.0.0/8", header: "X-Real-IP") }
    }

    /// nginx and ingress-nginx append only `X-Forwarded-For` and pass a client's own `Forwarded` through: with the
    /// default header, a client's `Forwarded` names nobody, whatever it says.
    @Test func onlyTheHeaderTheProxyWritesIsRead() throws {
        let proxies = try TrustedProxies(parsing: "10.0.0.0/8")
        let spoofed: HTTPFields = [.forwarded: "for=6.6.6.6", .xForwardedFor: "203.0.113.9"]
        #expect(proxies.clientAddress(peer: "10.0.0.1", headers: spoofed) == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "10.0.0.1", headers: [.forwarded: "for=6.6.6.6"]) == "10.0.0.1")
        let forwardedProxies = try TrustedProxies(parsing: "10.0.0.0/8", header: "forwarded")
        #expect(
            forwardedProxies.clientAddress(peer: "10.0.0.1", headers: [.forwarded: "for=198.51.100.7", .xForwardedFor: "6.6.6.6"]) == "198.51.100.7"
        )
    }

    func echoUpstream() -> some ApplicationProtocol {
        let router = Router()
        router.get("/opds/**") { request, _ in
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            return try JSONMessages.response(headers)
        }
        router.post("/admin/books") { request, _ in
            var bytes = 0
            for try await chunk in request.body { bytes += chunk.readableBytes }
            return try JSONMessages.response(["bytes": bytes])
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    func seenHeaders(trusted: String?) async throws -> [String: String] {
        try await echoUpstream().test(.live) { upstream -> [String: String] in
            let port = try #require(upstream.port)
            var overrides = ["CATALOG_URLS": "http://127.0.0.1:\(port)", "PATRON_URLS": "http://127.0.0.1:1", "GATEWAY_PORT": "0"]
            if let trusted { overrides["TRUSTED_PROXIES"] = trusted }
            return try await buildGatewayApplication(config: TestConfig.base(overrides)).test(.live) { client -> [String: String] in
                let headers: HTTPFields = [.xForwardedFor: "198.51.100.23", .forwarded: "for=198.51.100.23", HTTPField.Name("X-Real-IP")!: "1.1.1.1"]
                return try await client.execute(uri: "/opds/lanes/new", method: .get, headers: headers) { response -> [String: String] in
                    #expect(response.status == .ok)
                    return try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: String] ?? [:]
                }
            }
        }
    }

    @Test func forwardedHeadersCountOnlyFromTrustedProxiesAndAreNeverPassedOn() async throws {
        let untrusted = try await seenHeaders(trusted: nil)
        #expect(untrusted["x-client-address"] == "127.0.0.1")
        let trusted = try await seenHeaders(trusted: "127.0.0.0/8, ::1")
        #expect(trusted["x-client-address"] == "198.51.100.23")
        for seen in [untrusted, trusted] {
            #expect(seen["x-forwarded-for"] == nil && seen["forwarded"] == nil && seen["x-real-ip"] == nil)
        }
    }

    @Test func uploadsAreStreamedThroughWithinTheIngestLimit() async throws {
        try await echoUpstream().test(.live) { upstream in
            let port = try #require(upstream.port)
            let config = TestConfig.base([
                "CATALOG_URLS": "http://127.0.0.1:\(port)", "PATRON_URLS": "http://127.0.0.1:1", "GATEWAY_PORT": "0", "INGEST_MAX_BYTES": "2000000",
            ])
            // Through the router: the live test client gives up after 20 s, which a loaded machine once outlasted.
            try await buildGatewayApplication(config: config).testRouter { client in
                let fits = ByteBuffer(repeating: 7, count: 1_500_000)
                try await client.execute(uri: "/admin/books", method: .post, body: fits) { response in
                    #expect(response.status == .ok)
                    let answer = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Int]
                    #expect(answer?["bytes"] == 1_500_000)
                }
                let tooLarge = ByteBuffer(repeating: 7, count: 2_500_000)
                try await client.execute(uri: "/admin/books", method: .post, body: tooLarge) { response in
                    #expect(response.status == .contentTooLarge)
                }
            }
        }
    }
}
