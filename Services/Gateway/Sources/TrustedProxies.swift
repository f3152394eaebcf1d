import Foundation
import HTTPTypes
import ServiceSupport

/// The proxies in front of the gateway (`TRUSTED_PROXIES`: comma-separated CIDRs, default none), and the client's
/// real address derived from them.
///
/// The one header the proxies write (`TRUSTED_PROXY_HEADER`: `X-Forwarded-For`, as nginx, ingress-nginx and most
/// load balancers append, or `Forwarded`, RFC 7239) is read, and only when the connection comes from a trusted
/// proxy; the other header is ignored, since a proxy passes a client's own copy of it through untouched. The chain is
/// walked from the right, and the first address that is not a trusted proxy is the client: a client can prepend
/// whatever it likes, but only the hops that trusted proxies appended are believed.
struct TrustedProxies: Sendable, Equatable {
    /// The header the trusted proxies append the client's address to.
    enum Header: String, Sendable, Equatable {
        case xForwardedFor = "x-forwarded-for"
        case forwarded = "forwarded"
    }

    typealias Block = IPAddressBlock

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    var blocks: [Block]
    var header: Header

    init(blocks: [Block] = [], header: Header = .xForwardedFor) {
        self.blocks = blocks
        self.header = header
    }

    /// Parses `TRUSTED_PROXIES` and `TRUSTED_PROXY_HEADER`; throws naming the first entry that is not an address or a
    /// CIDR block, or a header that is neither.
    init(parsing list: String?, header name: String? = nil) throws {
        guard let header = Header(rawValue: (name ?? Header.xForwardedFor.rawValue).lowercased()) else {
            throw Invalid(description: "TRUSTED_PROXY_HEADER: '\(name ?? "")' is neither X-Forwarded-For nor Forwarded")
        }
        self.header = header
        blocks = try (list ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.map { entry in
            guard let block = Block(entry) else { throw Invalid(description: "TRUSTED_PROXIES: '\(entry)' is not an IP address or CIDR block") }
            return block
        }
    }

    func isTrusted(_ address: String) -> Bool {
        guard let bytes = Self.bytes(of: address) else { return false }
        return blocks.contains { $0.contains(bytes) }
    }

    /// The client's address: the socket peer, or, when the peer is a trusted proxy, the rightmost forwarded address
    /// that is not one. If the chain ends in something that is not an address, the last trusted hop stands.
    func clientAddress(peer: String?, headers: HTTPFields) -> String? {
        guard let peer, isTrusted(peer) else { return peer }
        var client = peer
        for hop in Self.forwardedChain(headers, header: header).reversed() {
            guard let address = Self.normalised(hop) else { break }
            client = address
            if !isTrusted(address) { break }
        }
        return client
    }

    /// The addresses `header` says a request was forwarded for, leftmost (the original client) first.
    static func forwardedChain(_ headers: HTTPFields, header: Header) -> [String] {
        if header == .forwarded {
            return headers[values: .forwarded].flatMap { $0.split(separator: ",") }.compactMap { element in
                element.split(separator: ";").lazy.map { $0.trimmingCharacters(in: .whitespaces) }
                    .first { $0.lowercased().hasPrefix("for=") }.map { String($0.dropFirst(4)) } ?? "unknown"
            }
        }
        return headers[values: .xForwardedFor].flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// An address from a header as plain text (`"[2001:db8::1]:443"` → `2001:db8::1`, `1.2.3.4:80` → `1.2.3.4`), or
    /// nil when it is not one (`unknown`, an obfuscated `_hidden`).
    static func normalised(_ text: String) -> String? {
        var value = text.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        if value.hasPrefix("["), let end = value.firstIndex(of: "]") {
            value = String(value[value.index(after: value.startIndex)..<end])
        } else if value.filter({ $0 == ":" }).count == 1, let colon = value.firstIndex(of: ":") {
            value = String(value[..<colon])
        }
        return bytes(of: value) != nil ? value : nil
    }

    static func bytes(of text: String) -> [UInt8]? { IPAddressBlock.bytes(of: text) }
}

extension HTTPField.Name {
    static let forwarded = Self("Forwarded")!
    static let xForwardedFor = Self("X-Forwarded-For")!
}
