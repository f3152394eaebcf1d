import NIOCore

/// A patron's feed page as an edit of the shared page the gateway holds: parts of the shared page's bytes replaced, in
/// order, by bytes of the patron's page (their loans and holds, the page's head when a link or a count differs, books
/// that moved up past a hidden one; an empty range inserts, an empty part removes). Catalog sends it instead of the
/// whole page to a gateway that holds the shared page uncompressed (`X-Internal-Splice-Accepted`, `FeedSplice`): a few
/// KB over the hop instead of ~120 KB (issue 72). The gateway applies it to the bytes it holds.
public struct PageSplice: Sendable, Equatable {
    /// The bytes of the shared page that one part replaces, and how long the part is.
    public struct Part: Sendable, Equatable {
        public var replaced: Range<Int>
        public var length: Int

        public init(replaced: Range<Int>, length: Int) {
            self.replaced = replaced
            self.length = length
        }
    }

    /// In page order; their bytes follow one another in `bytes`.
    public var parts: [Part]
    public var bytes: ByteBuffer

    public init(parts: [Part], bytes: ByteBuffer) {
        self.parts = parts
        self.bytes = bytes
    }

    /// `X-Internal-Splice`: each part as `start-end:length`, comma-separated (empty for none).
    public var header: String {
        parts.map { "\($0.replaced.lowerBound)-\($0.replaced.upperBound):\($0.length)" }.joined(separator: ",")
    }

    /// A splice read from its header and body; nil when they do not agree (lengths, order, overlaps).
    public init?(header: String, bytes: ByteBuffer) {
        var parts: [Part] = []
        for field in header.split(separator: ",", omittingEmptySubsequences: false) where !header.isEmpty {
            let halves = field.split(separator: ":", omittingEmptySubsequences: false)
            guard halves.count == 2, let length = Int(halves[1]), length >= 0 else { return nil }
            let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let start = Int(bounds[0]), let end = Int(bounds[1]), start >= 0, start <= end,
                start >= (parts.last?.replaced.upperBound ?? 0)
            else { return nil }
            parts.append(Part(replaced: start..<end, length: length))
        }
        guard parts.reduce(0, { $0 + $1.length }) == bytes.readableBytes else { return nil }
        self.init(parts: parts, bytes: bytes)
    }

    /// `page` with the parts in place; nil when a part lies beyond its end.
    public func applied(to page: ByteBuffer) -> ByteBuffer? {
        guard (parts.last?.replaced.upperBound ?? 0) <= page.readableBytes else { return nil }
        let added = parts.reduce(0) { $0 + $1.length - $1.replaced.count }
        var result = ByteBufferAllocator().buffer(capacity: page.readableBytes + added)
        var parts = bytes
        var copied = 0
        for part in self.parts {
            var kept = page.getSlice(at: page.readerIndex + copied, length: part.replaced.lowerBound - copied)!
            result.writeBuffer(&kept)
            var replacement = parts.readSlice(length: part.length)!
            result.writeBuffer(&replacement)
            copied = part.replaced.upperBound
        }
        var rest = page.getSlice(at: page.readerIndex + copied, length: page.readableBytes - copied)!
        result.writeBuffer(&rest)
        return result
    }
}
