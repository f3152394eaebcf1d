import Foundation
import Hummingbird
import Shared

/// What a feed request asks for, read from its headers, path and query; bad values are 400 problem documents.
enum FeedRequest {
    /// Whether the client asked for OPDS 2.0 (JSON) rather than OPDS 1.2 (Atom).
    static func wantsJSON(_ request: Request) -> Bool {
        let accept = request.headers[.accept] ?? ""
        return accept.contains(MediaType.opds2) || accept.contains(MediaType.opds2Publication)
    }

    /// `available=now` (only books with a free copy) or `all` (the default).
    static func availableOnly(_ value: String?) throws -> Bool {
        switch value {
        case nil, "all": return false
        case "now": return true
        default: throw Problem.badRequest("available must be now or all")
        }
    }

    /// `size`: 1 to 100 entries, 50 when absent.
    static func pageSize(_ value: String?) throws -> Int {
        guard let value else { return 50 }
        guard let size = Int(value), (1...100).contains(size) else { throw Problem.badRequest("size must be from 1 to 100") }
        return size
    }

    /// `audience=teen|child`: the limit of a teen's or a child's card, which the gateway sets on their requests (none:
    /// every book). Anyone may ask for it; it only ever narrows.
    static func audienceLimit(_ request: Request) throws -> AudienceLimit? {
        guard let value = request.uri.queryParameters.get(AudienceLimit.parameter) else { return nil }
        guard let limit = AudienceLimit(rawValue: value) else { throw Problem.badRequest("audience must be teen or child") }
        return limit
    }

    /// The `name` path parameter, percent-decoded: at most 300 printable characters.
    static func name(_ context: some RequestContext) throws -> String {
        let raw = context.parameters.get("name") ?? ""
        let name = raw.removingPercentEncoding ?? raw
        guard (1...300).contains(name.count), !name.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
            throw Problem.badRequest("The name must be 1 to 300 printable characters")
        }
        return name
    }

    /// The query parameters feeds understand; others change nothing, so they are left out of cache keys and links.
    static let knownParameters: Set<Substring> = [
        "sort", "order", "available", "accessibility", "format", "audience", "size", "after", "page", "q", "query", "title", "author", "genre",
        "publisher",
        "language",
        "isbn",
    ]

    /// The request's query with only `knownParameters`, still percent-encoded, in the request's order.
    static func knownQuery(_ request: Request) -> [String] {
        (request.uri.query ?? "").split(separator: "&").filter { item in
            !item.isEmpty && knownParameters.contains(item.split(separator: "=", maxSplits: 1).first ?? "")
        }.map(String.init)
    }
}
