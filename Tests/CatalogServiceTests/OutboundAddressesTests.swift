import Foundation
import ServiceSupport
import Testing

@testable import CatalogService

/// Which addresses OPDS import may fetch from.
@Suite struct OutboundAddressesTests {
    func permitted(_ address: String, allowing allowed: [String] = []) -> Bool {
        OutboundAddresses(allowed: allowed.compactMap(IPAddressBlock.init)).permits(IPAddressBlock.bytes(of: address)!)
    }

    @Test func publicAddressesArePermittedAndNoOthers() {
        for address in ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:93.184.216.34"] { #expect(permitted(address), "\(address)") }
        for address in [
            "127.0.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "::1", "::",
            "fd00::1", "fe80::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a00:1", "2001:db8::1", "ff02::1",
        ] {
            #expect(!permitted(address), "\(address)")
        }
    }

    @Test func theOperatorsListOpensItsBlocksOnly() {
        #expect(permitted("10.20.0.5", allowing: ["10.20.0.0/16"]))
        #expect(!permitted("10.21.0.5", allowing: ["10.20.0.0/16"]))
        #expect(permitted("fd12::7", allowing: ["fd12::/16"]))
    }

    @Test func aNameIsJudgedByEveryAddressItResolvesTo() async throws {
        await #expect(throws: OutboundAddresses.Refused.self) { try await OutboundAddresses().address(for: "localhost") }
        await #expect(throws: OutboundAddresses.Refused.self) { try await OutboundAddresses().address(for: "[::1]") }
        #expect(
            try await OutboundAddresses(allowed: [IPAddressBlock("127.0.0.0/8")!, IPAddressBlock("::1")!]).address(for: "localhost").isEmpty == false
        )
    }
}
