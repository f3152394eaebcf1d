import NIOCore
import ServiceSupport
import Shared
import Testing

/// A patron's entries spliced into the shared page the gateway holds (`PageSplice`): what catalog writes reads back,
/// and parts that do not fit are refused rather than applied.
@Suite struct PageSpliceTests {
    let page = ByteBuffer(string: "<feed><e1/><e2/><e3/></feed>")

    @Test func partsReplaceTheirBytesInPageOrder() throws {
        let splice = PageSplice(
            parts: [.init(replaced: 6..<11, length: 10), .init(replaced: 16..<21, length: 4)],
            bytes: ByteBuffer(string: "<e1 mine/><3/>")
        )
        #expect(splice.header == "6-11:10,16-21:4")
        let read = try #require(PageSplice(header: splice.header, bytes: splice.bytes))
        #expect(read == splice)
        #expect(String(buffer: try #require(read.applied(to: page))) == "<feed><e1 mine/><e2/><3/></feed>")
        let none = try #require(PageSplice(header: "", bytes: ByteBuffer()))
        #expect(none.parts.isEmpty)
        #expect(String(buffer: try #require(none.applied(to: page))) == String(buffer: page), "no parts: the page")
        var offset = ByteBuffer(string: "xx")
        offset.writeImmutableBuffer(page)
        offset.moveReaderIndex(forwardBy: 2)
        #expect(String(buffer: try #require(read.applied(to: offset))) == "<feed><e1 mine/><e2/><3/></feed>", "a page read from a larger buffer")
    }

    @Test func partsThatDoNotFitAreRefused() {
        let bytes = ByteBuffer(string: "abc")
        #expect(PageSplice(header: "6-11:2", bytes: bytes) == nil, "lengths that are not the body's")
        #expect(PageSplice(header: "16-21:1,6-11:2", bytes: bytes) == nil, "out of order")
        #expect(PageSplice(header: "6-11:1,10-12:2", bytes: bytes) == nil, "overlapping")
        #expect(PageSplice(header: "11-6:3", bytes: bytes) == nil)
        #expect(PageSplice(header: "a-b:3", bytes: bytes) == nil)
        #expect(PageSplice(header: "6-11", bytes: bytes) == nil)
        #expect(PageSplice(header: "-1-3:3", bytes: bytes) == nil)
        #expect(PageSplice(header: "20-40:3", bytes: bytes)?.applied(to: page) == nil, "beyond the page's end")
    }
}
