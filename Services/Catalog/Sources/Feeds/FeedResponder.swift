import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceSupport
import Shared

/// Renders a feed as the request asks (OPDS 1.2 Atom or OPDS 2.0 JSON) into a cacheable response.
struct FeedResponder: Sendable {
    let publicURL: String

    /// The feed as `personal` gets it. An anonymous visitor's page is kept with what it was made from
    /// (`RenderedFeed`); computed again (its copy in the feed cache went stale) as the same feed, it is the copy held,
    /// not rendered again: most pages are the same every time they go stale, and rendering them was a third of
    /// catalog's work under a browsing crowd (issue 49). Same feed, same bytes, same ETag. A patron's page that is the
    /// shared page the gateway holds, edited, is only the bytes that differ from it (`FeedSplice`).
    func render(_ feed: Feed, request: Request, for personal: PatronOverlay, rows: FeedPostgresRepository.Page? = nil) throws -> StoredResponse {
        guard personal.shelf == nil else {
            if let shared = personal.spliceOnto,
                let answer = FeedSplice.answer(
                    feed,
                    onto: shared,
                    json: FeedRequest.wantsJSON(request),
                    publicURL: publicURL,
                    version: personal.version
                )
            {
                return answer
            }
            // A patron's page is made for one request: compressed fast.
            return try render(feed, request: request, compression: .fast)
        }
        if var held = personal.heldPage, (held.source as? RenderedFeed)?.feed == feed {
            // Vouched for now: kept afresh, not as old as the copy it replaces.
            held.headers[.age] = nil
            return held
        }
        var (stored, entryRanges) = rendered(feed, request: request, compression: .standard)
        stored.source = RenderedFeed(feed: feed, rows: rows, entryRanges: entryRanges)
        return stored
    }

    /// The feed rendered for the request (OPDS 1.2 or 2.0), with the ids of its books.
    func render(_ feed: Feed, request: Request, compression: Gzip.Level = .standard) throws -> StoredResponse {
        rendered(feed, request: request, compression: compression).response
    }

    /// The feed rendered for the request, and where its own entries' bytes lie when the body is those bytes (not
    /// compressed) and the page has no groups: the shared page a patron's entries can be spliced into (`FeedSplice`).
    private func rendered(_ feed: Feed, request: Request, compression: Gzip.Level) -> (response: StoredResponse, entryRanges: [Range<Int>]?) {
        let bookIDs = feed.bookIDs
        var ranges: [Range<Int>] = []
        let stored: StoredResponse
        if FeedRequest.wantsJSON(request) {
            var json = JSONWriter(capacity: 4096)
            OPDS2Renderer.feed(feed, publicURL: publicURL).write(to: &json, publicationRanges: &ranges)
            stored = cacheable(ByteBuffer(bytes: json.bytes), type: MediaType.opds2, request: request, bookIDs: bookIDs, compression: compression)
        } else {
            stored = cacheable(
                AtomRenderer.feed(feed, entryRanges: &ranges),
                type: feed.kind == .navigation ? MediaType.navigation : MediaType.acquisition,
                request: request,
                bookIDs: bookIDs,
                compression: compression
            )
        }
        let spliceable = stored.headers[.contentEncoding] == nil && feed.groups.isEmpty && ranges.count == feed.entries.count
        return (stored, spliceable ? ranges : nil)
    }

    /// A strong ETag over the bytes, public caching, and gzip when the client accepts it (a different representation,
    /// so a different ETag, and one per compression level: a strong ETag names exact bytes). A patron's copy is made
    /// private by `PatronOverlay.personalised`.
    func cacheable(_ data: ByteBuffer, type: String, request: Request, bookIDs: Set<UUID>, compression: Gzip.Level = .standard) -> StoredResponse {
        var body = data
        var etag = data.withUnsafeReadableBytes { PageFingerprint.hex(of: $0) }
        var headers: HTTPFields = [
            .contentType: type, .cacheControl: "public, max-age=30",
            .vary: "Accept, Accept-Encoding, Authorization",
        ]
        if data.readableBytes > 1024, Gzip.accepted(by: request.headers[.acceptEncoding]),
            let compressed = Gzip.compress(Data(data.readableBytesView), level: compression)
        {
            body = ByteBuffer(bytes: compressed)
            etag += compression == .fast ? "-gz1" : "-gz"
            headers[.contentEncoding] = "gzip"
        }
        headers[.eTag] = "\"\(etag)\""
        return StoredResponse(body: body, headers: headers, bookIDs: bookIDs)
    }
}
