import Foundation
import ServiceSupport

#if canImport(Glibc)
import Glibc
#endif

/// The addresses OPDS import may fetch from: public ones only, unless the operator's `OPDS_IMPORT_ALLOW` names a block
/// (a feed on the library's own network). Without this an operator's feed URL, or a redirect a feed answers with,
/// makes catalog fetch from loopback, the cluster's services, the cloud's metadata address or the library's intranet.
/// Checked on the addresses a host name resolves to, every one of them (a name that resolves to a public and a private
/// address is refused), and the connection is then made to the address checked, not to a second look-up's answer.
struct OutboundAddresses: Sendable {
    /// `OPDS_IMPORT_ALLOW`: blocks fetched from even though they are not public.
    var allowed: [IPAddressBlock] = []

    /// Loopback, private, link-local (the cloud's metadata address), shared (carrier NAT, Kubernetes' services often),
    /// documentation, benchmarking, multicast and reserved ranges, and IPv6's unique-local and NAT64 ranges.
    static let notPublic: [IPAddressBlock] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
        "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
        "224.0.0.0/4", "240.0.0.0/4",
        "::/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32", "2002::/16", "fc00::/7",
        "fe80::/10", "fec0::/10", "ff00::/8",
    ].map { IPAddressBlock($0)! }

    func permits(_ address: [UInt8]) -> Bool {
        allowed.contains { $0.contains(address) } || !Self.notPublic.contains { $0.contains(address) }
    }

    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    /// The address to connect to for `host`: the host itself when it is an address, else the first address it
    /// resolves to; refused when any of them is not permitted or the name does not resolve. The reason names no
    /// address and no port, so that a run's errors do not map a network.
    func address(for host: String) async throws -> String {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let addresses: [String]
        if IPAddressBlock.bytes(of: bare) != nil {
            addresses = [bare]
        } else {
            addresses = try await BlockingWork.run { Self.resolve(bare) }
        }
        guard let first = addresses.first else { throw Refused(description: "the host name \(bare) does not resolve") }
        for address in addresses {
            guard let bytes = IPAddressBlock.bytes(of: address), permits(bytes) else {
                throw Refused(description: "\(bare) is not a public address (OPDS_IMPORT_ALLOW lists the ones that may be fetched anyway)")
            }
        }
        return first
    }

    /// Every address `host` resolves to, as text.
    static func resolve(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let info = node?.pointee {
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            if info.ai_family == AF_INET, let raw = info.ai_addr {
                var address = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
            } else if info.ai_family == AF_INET6, let raw = info.ai_addr {
                var address = raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
            }
            let address = String(cString: text)
            if !address.isEmpty, !addresses.contains(address) { addresses.append(address) }
            node = info.ai_next
        }
        return addresses
    }
}
