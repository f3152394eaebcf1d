import Foundation
import Testing

@testable import CatalogService

/// Path segments written byte by byte, against Foundation's encoding that they replaced.
@Suite struct PathSegmentTests {
    @Test func textIsOneSegmentAsFoundationEncodedIt() {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%;")
        var names = [
            "Jane Austen", "Gabriel García Márquez", "a/b?c#d%e;f", "100% Fun", "名前の本", "Émile 🚀 Zola", "O'Brien & Sons", "x+y=z",
            "tab\there", "~_.-!$&'()*,:@=", "[brackets] {braces} <angles> \"quotes\" `ticks` ^caret |pipe \\back", "",
        ]
        names += (0..<128).map { String(Character(Unicode.Scalar(UInt8($0)))) }
        for name in names {
            #expect(PathSegment.encode(name) == name.addingPercentEncoding(withAllowedCharacters: allowed), "\(name.debugDescription)")
        }
    }
}
