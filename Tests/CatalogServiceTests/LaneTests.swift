import Foundation
import Testing

@testable import CatalogService

/// Lanes' own path writing, against what it replaced.
@Suite struct LaneTests {
    @Test func aNameIsOnePathSegmentAsFoundationEncodedIt() {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%;")
        var names = [
            "Jane Austen", "Gabriel García Márquez", "a/b?c#d%e;f", "100% Fun", "名前の本", "Émile 🚀 Zola", "O'Brien & Sons", "x+y=z",
            "tab\there", "~_.-!$&'()*,:@=", "[brackets] {braces} <angles> \"quotes\" `ticks` ^caret |pipe \\back", "",
        ]
        names += (0..<128).map { String(Character(Unicode.Scalar(UInt8($0)))) }
        for name in names {
            #expect(Lane.pathComponent(name) == name.addingPercentEncoding(withAllowedCharacters: allowed), "\(name.debugDescription)")
        }
    }
}
