import Foundation
import HTTPTypes
import NIOCore
import ServiceSupport
import Shared

/// A patron's feed page as the shared page the gateway holds, edited (`PageSplice`): each of their entries that is
/// byte for byte an entry of the shared page (the same book, read the same, shown as to everyone) is that entry's
/// bytes where the gateway holds them; the rest (a loan, a hold, a book that moved up when the patron hid one) is
/// rendered here, with the page's head when it differs (a next link, a total). Only what differs
/// crosses the hop: a few KB instead of the ~120 KB page, and one or two entries rendered instead of fifty.
enum FeedSplice {
    /// The answer for a gateway holding `shared` (uncompressed, with its entries' places: `RenderedFeed.entryRanges`):
    /// the parts, under an ETag of the shared page's and the parts' own, so that the same ETag always names the same
    /// bytes; nil when `shared` has no places, or `feed` has groups or no entries (its JSON would differ in shape).
    static func answer(_ feed: Feed, onto shared: StoredResponse, json: Bool, publicURL: String, version: Int64) -> StoredResponse? {
        guard let sharedETag = shared.headers[.eTag], let base = shared.source as? RenderedFeed,
            let splice = splice(feed, onto: base, sharedBytes: shared.body, json: json, publicURL: publicURL)
        else { return nil }
        var written = Array(splice.header.utf8)
        written += splice.bytes.readableBytesView
        let parts = written.withUnsafeBytes { PageFingerprint.hex(of: $0) }
        let headers: HTTPFields = [
            .sharedPageUsable: "splice", .splice: splice.header, .cacheControl: PersonalPage.cacheControl,
            .splicedETag: PersonalPage.splicedETag(shared: sharedETag, shelfVersion: version, parts: String(parts.prefix(16))),
        ]
        return StoredResponse(body: splice.bytes, headers: headers)
    }

    /// The parts that make `feed`'s page from `sharedBytes`, the page rendered from `base.feed`; nil when none can.
    static func splice(_ feed: Feed, onto base: RenderedFeed, sharedBytes: ByteBuffer, json: Bool, publicURL: String) -> PageSplice? {
        guard let ranges = base.entryRanges, let last = ranges.last, ranges.count == base.feed.entries.count,
            last.upperBound <= sharedBytes.readableBytes, !feed.entries.isEmpty, feed.groups.isEmpty
        else { return nil }
        // By index, here and below: iterating the entries copied each one (a book's every field retained and released).
        let (mine, theirs) = (feed.entries, base.feed.entries)
        var shared: [UUID: Int] = Dictionary(minimumCapacity: theirs.count)
        for index in theirs.indices { shared[theirs[index].book.id] = index }
        var edit = Edit(shared: sharedBytes)
        if feed.hasTheSameHead(as: base.feed) {
            // The shared page's head as it lies: neither rendered again nor sent.
            guard edit.keep(0..<ranges[0].lowerBound) else { return nil }
        } else {
            edit.write(json ? prefixJSON(feed, publicURL: publicURL) : AtomRenderer.prefixBytes(feed))
        }
        var previous = -1
        for position in mine.indices {
            if json, position > 0 { edit.write([UInt8(ascii: ",")]) }
            if let index = shared[mine[position].book.id], index > previous, !(mine[position].view.map(Entry.showsDifferently) ?? false),
                mine[position].book == theirs[index].book, mine[position].publicURL == theirs[index].publicURL
            {
                guard edit.keep(ranges[index]) else { return nil }
                previous = index
            } else {
                let entry = mine[position]
                edit.write(json ? JSONWriter.bytes(of: OPDS2Renderer.publication(entry)) : AtomRenderer.entryBytes(entry))
            }
        }
        // The end (`]}` or `</feed>`) as the shared page has it.
        guard edit.keep(last.upperBound..<sharedBytes.readableBytes) else { return nil }
        return edit.splice
    }

    /// The OPDS 2.0 feed's bytes through `"publications":[`.
    private static func prefixJSON(_ feed: Feed, publicURL: String) -> [UInt8] {
        var json = JSONWriter(capacity: 4096)
        OPDS2Renderer.head(feed, publicURL: publicURL).writePrefix(to: &json)
        return json.bytes
    }

    /// The page written as bytes of its own and ranges of the shared page kept, in order; each stretch of the shared
    /// page between two kept ranges is replaced by what was written between them, unless it is those very bytes.
    struct Edit {
        let shared: ByteBuffer
        var splice = PageSplice(parts: [], bytes: ByteBuffer())
        private var written: [UInt8] = []
        /// Where the last kept range ended.
        private var kept = 0

        init(shared: ByteBuffer) { self.shared = shared }

        mutating func write(_ bytes: [UInt8]) { written += bytes }

        /// Keeps `range` of the shared page; false when it lies before what was kept already.
        mutating func keep(_ range: Range<Int>) -> Bool {
            guard range.lowerBound >= kept else { return false }
            let stretch = kept..<range.lowerBound
            let same = shared.withUnsafeReadableBytes { stretch.count == written.count && $0[stretch].elementsEqual(written) }
            if !same {
                splice.parts.append(PageSplice.Part(replaced: stretch, length: written.count))
                splice.bytes.writeBytes(written)
            }
            written.removeAll(keepingCapacity: true)
            kept = range.upperBound
            return true
        }
    }
}
