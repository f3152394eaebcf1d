import HTTPTypes
import Hummingbird
import Shared

/// What the gateway keeps of catalog's answers in its `ResponseCache` ("edge"), as a caching reverse proxy would,
/// so that the pages every visitor asks for (root, groups, lane pages, popular searches, covers) are answered
/// without a hop to catalog.
///
/// Only what catalog itself declares shareable is kept: a 200 to an anonymous `GET` with `Cache-Control: public,
/// max-age=N`, no `Set-Cookie`, varying only by `Accept`, `Accept-Encoding` and `Authorization`, of a known length
/// up to `maxEntryBytes`. Fresh and stale time together stay within what is left of the max-age after the
/// response's `Age`. Requests with credentials, a `Range` or `Cache-Control: no-cache` go to catalog, and a
/// successful change sent to catalog through this gateway (an admin's POST, PUT, PATCH or DELETE) empties the
/// cache; another gateway replica's copy is at most `EDGE_CACHE_TTL` old, plus its stale time.
enum EdgeCachePolicy {
    /// Signed-in requests whose shared part the gateway may hold: feed pages, not the patron's own shelf.
    static func sharesPages(_ path: String) -> Bool { PublicService.isFeed(path) && path != PublicRoute.shelfFeed.path }

    static let maxEntryBytes = 1 << 20
    /// The largest EPUB the gateway keeps a copy of (`HELD_FILES_BYTES` bounds them all).
    static let maxFileBytes = 16 << 20
    /// Longer URIs (padded with parameters nobody reads) go to catalog uncached instead of taking cache space.
    static let maxURIBytes = 1_024

    /// The key under which `request` may be answered from the cache, or nil when it must go to catalog. With
    /// `ignoringCredentials`, the key of the page an anonymous visitor would get (a signed-in feed request's shared part).
    static func key(for request: Request, ignoringCredentials: Bool = false) -> String? {
        guard request.method == .get, ignoringCredentials || request.headers[.authorization] == nil, request.headers[.range] == nil,
            !(request.headers[.cacheControl] ?? "").contains("no-cache"), request.uri.description.utf8.count <= maxURIBytes
        else { return nil }
        return "\(request.uri)\u{0}\(request.headers[.accept] ?? "")\u{0}\(request.headers[.acceptEncoding] ?? "")"
    }

    /// How long a 200 with these headers may stay fresh in the cache (it may then serve stale as long again),
    /// or nil when it must not be kept.
    static func lifetime(of headers: HTTPFields) -> Duration? {
        let cacheControl = (headers[.cacheControl] ?? "").lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard cacheControl.contains("public"), !cacheControl.contains(where: { ["private", "no-store", "no-cache"].contains($0) }),
            let maxAge = cacheControl.lazy.compactMap({ $0.hasPrefix("max-age=") ? Int($0.dropFirst(8)) : nil }).first,
            headers[.setCookie] == nil, let length = headers[.contentLength].flatMap(Int.init), length <= maxEntryBytes,
            (headers[.vary] ?? "").lowercased().split(separator: ",").allSatisfy({
                ["accept", "accept-encoding", "authorization"].contains($0.trimmingCharacters(in: .whitespaces))
            })
        else { return nil }
        let remaining = maxAge - (headers[.age].flatMap(Int.init) ?? 0)
        return remaining >= 2 ? .milliseconds(remaining * 500) : nil
    }
}
