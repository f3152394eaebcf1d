import Foundation
import Shared
import Testing

/// Percent-encoding written byte by byte, against Foundation's encoding that it replaced.
@Suite struct PercentEncodingTests {
    static var texts: [String] {
        [
            "Jane Austen", "Gabriel García Márquez", "a/b?c#d%e;f", "100% Fun", "名前の本", "Émile 🚀 Zola", "O'Brien & Sons", "x+y=z",
            "tab\there", "~_.-!$&'()*,:@=", "[brackets] {braces} <angles> \"quotes\" `ticks` ^caret |pipe \\back", "",
        ] + (0..<128).map { String(Character(Unicode.Scalar(UInt8($0)))) }
    }

    @Test func aPathSegmentIsEncodedAsFoundationEncodedIt() {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%;")
        for text in Self.texts {
            #expect(
                PercentEncoding.encode(text, keeping: .pathSegment) == text.addingPercentEncoding(withAllowedCharacters: allowed),
                "\(text.debugDescription)"
            )
        }
    }

    @Test func aQueryValueKeepsOnlyTheUnreservedCharacters() {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        for text in Self.texts {
            #expect(
                PercentEncoding.encode(text, keeping: .unreserved) == text.addingPercentEncoding(withAllowedCharacters: allowed),
                "\(text.debugDescription)"
            )
        }
    }
}
