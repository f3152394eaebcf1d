import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One CIDR block: the network's bytes (4 for IPv4, 16 for IPv6) and its prefix length. The gateway's trusted proxies,
/// catalog's outbound allow-list and patron's per-address limits are written as these.
public struct IPAddressBlock: Sendable, Equatable, CustomStringConvertible {
    public var network: [UInt8]
    public var prefix: Int

    /// `10.0.0.0/8`, `fd00::/8`, or one address (its full length).
    public init?(_ text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", maxSplits: 1).map(String.init)
        guard let first = parts.first, let bytes = IPAddressBlock.bytes(of: first) else { return nil }
        let bits = bytes.count * 8
        guard let prefix = parts.count == 2 ? Int(parts[1]) : bits, (0...bits).contains(prefix) else { return nil }
        network = bytes
        self.prefix = prefix
    }

    public func contains(_ address: [UInt8]) -> Bool {
        guard address.count == network.count else { return false }
        var remaining = prefix
        for (a, b) in zip(address, network) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if a & mask != b & mask { return false }
            remaining -= 8
        }
        return true
    }

    public var description: String {
        let text =
            network.count == 4
            ? network.map(String.init).joined(separator: ".")
            : stride(from: 0, to: 16, by: 2).map { String(UInt16(network[$0]) << 8 | UInt16(network[$0 + 1]), radix: 16) }.joined(separator: ":")
        return "\(text)/\(prefix)"
    }

    /// Parses a comma-separated list; throws naming the first entry that is not an address or a block.
    public static func list(_ text: String?, name: String) throws -> [IPAddressBlock] {
        try (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.map { entry in
            guard let block = IPAddressBlock(entry) else {
                throw ServiceConfig.Invalid(description: "\(name): '\(entry)' is not an IP address or CIDR block")
            }
            return block
        }
    }

    /// The bytes of an IPv4 or IPv6 address (IPv4-mapped IPv6 as IPv4), or nil.
    public static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes.prefix(10).allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes.suffix(4)) }
        return bytes
    }

    /// The key per-address limits count `address` under: an IPv4 address as it is, an IPv6 address by its /64 (one
    /// household's or one device's network: a client gets a whole /64 and may pick any address in it), and anything
    /// else as it is written.
    public static func limitKey(_ address: String) -> String {
        guard let bytes = bytes(of: address) else { return address }
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return IPAddressBlock(network: Array(bytes.prefix(8)) + Array(repeating: 0, count: 8), prefix: 64).description
    }

    init(network: [UInt8], prefix: Int) {
        self.network = network
        self.prefix = prefix
    }
}
