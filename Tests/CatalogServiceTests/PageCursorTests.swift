import Foundation
import Testing

@testable import CatalogService

/// The `after` cursor of keyset paging.
@Suite struct PageCursorTests {
    /// A page's next link is part of its bytes and ETag, which must be the same at every catalog replica: the cursor's
    /// JSON has its keys in sorted order whatever the process's hash seed.
    @Test func aCursorIsEncodedWithItsKeysInOrderAndReadBack() throws {
        let id = UUID(uuidString: "F8749028-3360-41BC-8EA0-BD58C4893DAA")!
        let cursor = PageCursor(value: "49", id: id, sort: "popularity", order: "desc", title: "a")
        let json = #"{"id":"f8749028-3360-41bc-8ea0-bd58c4893daa","order":"desc","sort":"popularity","title":"a","value":"49"}"#
        let expected = Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(cursor.encoded == expected)
        #expect(PageCursor(encoded: cursor.encoded) == cursor)
        #expect(PageCursor(encoded: "not a cursor") == nil)
        // A cursor an earlier version wrote (upper-case id, the encoder's key order) still reads.
        let earlier = Data(#"{"value":"49","sort":"popularity","id":"F8749028-3360-41BC-8EA0-BD58C4893DAA","order":"desc"}"#.utf8)
            .base64EncodedString().replacingOccurrences(of: "=", with: "")
        #expect(PageCursor(encoded: earlier) == PageCursor(value: "49", id: id, sort: "popularity", order: "desc"))
        // Escapes and characters beyond ASCII in a title go there and back.
        let titled = PageCursor(value: "0.5", id: id, sort: "relevance", order: "asc", title: "L'\"été\" / 東京\\")
        #expect(PageCursor(encoded: titled.encoded) == titled)
    }

    /// Anything but a cursor's JSON, in base64url, is no cursor: a missing or mistyped member, a title that is not
    /// text, bytes that are not UTF-8, characters outside base64url. A null title is none, and members this version
    /// does not know are left alone.
    @Test func onlyACursorsJSONIsACursor() {
        func encoded(_ bytes: [UInt8]) -> String {
            Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        func encoded(_ json: String) -> String { encoded(Array(json.utf8)) }
        let id = UUID(uuidString: "F8749028-3360-41BC-8EA0-BD58C4893DAA")!
        let members = #""id":"f8749028-3360-41bc-8ea0-bd58c4893daa","order":"asc","sort":"title""#
        #expect(PageCursor(encoded: encoded("{\(members),\"value\":\"a\"}")) == PageCursor(value: "a", id: id, sort: "title", order: "asc"))
        #expect(PageCursor(encoded: encoded("{\(members),\"value\":\"a\",\"title\":null,\"more\":[1]}"))?.title == nil)
        for json in [
            "{\(members)}", "{\(members),\"value\":1}", "{\(members),\"value\":\"a\",\"title\":2}", "[\(members)]",
            #"{"id":"not an id","order":"asc","sort":"title","value":"a"}"#, "{\(members),\"value\":\"a\"", "",
        ] {
            #expect(PageCursor(encoded: encoded(json)) == nil, "\(json)")
        }
        #expect(PageCursor(encoded: encoded(Array("{\(members),\"value\":\"".utf8) + [0xC3, 0x28] + Array("\"}".utf8))) == nil)
        #expect(PageCursor(encoded: encoded("{\(members),\"value\":\"a\"}") + "!") == nil)
        #expect(PageCursor(encoded: String(repeating: "A", count: 4096)) == nil)
    }
}
