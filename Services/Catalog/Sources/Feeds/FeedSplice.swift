import Foundation
import HTTPTypes
import NIOCore
import ServiceSupport
import Shared

/// A patron's feed page as the shared page the gateway holds with the patron's own entries spliced in (`PageSplice`).
/// It applies when the patron's page is the shared feed with nothing changed but the views of some of its books (the
/// same books in the same order, the same links and counts: no hidden book moved them), which `FeedController` makes
/// from the shared page's own rows. Each entry a view changes (`Entry.showsDifferently`) is rendered alone, byte for
/// byte as it stands in the feed, and replaces the shared entry's bytes (`RenderedFeed.entryRanges`).
enum FeedSplice {
    /// The answer for a gateway holding `shared`: the parts, under the ETag of the page they make; nil when `feed`
    /// is not `shared`'s feed with other views, or when a changed entry reads the clock (a suspended hold's link:
    /// its bytes would change under the same shelf version, so that page is rendered whole under its bytes' ETag).
    static func answer(_ feed: Feed, onto shared: StoredResponse, json: Bool, version: Int64) -> StoredResponse? {
        guard let sharedETag = shared.headers[.eTag], let base = shared.source as? RenderedFeed,
            let splice = splice(feed, onto: base, json: json)
        else { return nil }
        let headers: HTTPFields = [
            .sharedPageUsable: "splice", .splice: splice.header, .cacheControl: PersonalPage.cacheControl,
            .splicedETag: PersonalPage.splicedETag(shared: sharedETag, shelfVersion: version),
        ]
        return StoredResponse(body: splice.bytes, headers: headers)
    }

    /// The parts that make `feed` from the page rendered from `base.feed`; nil when none can.
    static func splice(_ feed: Feed, onto base: RenderedFeed, json: Bool) -> PageSplice? {
        guard let ranges = base.entryRanges, ranges.count == feed.entries.count else { return nil }
        var plain = feed
        var changed: [Int] = []
        for index in plain.entries.indices {
            guard let view = plain.entries[index].view else { continue }
            if view.suspendedUntil != nil { return nil }
            if Entry.showsDifferently(view) { changed.append(index) }
            plain.entries[index].view = nil
        }
        guard plain == base.feed else { return nil }
        var bytes: [UInt8] = []
        var parts: [PageSplice.Part] = []
        for index in changed {
            let entry = json ? JSONWriter.bytes(of: OPDS2Renderer.publication(feed.entries[index])) : AtomRenderer.entryBytes(feed.entries[index])
            parts.append(PageSplice.Part(replaced: ranges[index], length: entry.count))
            bytes += entry
        }
        return PageSplice(parts: parts, bytes: ByteBuffer(bytes: bytes))
    }
}
