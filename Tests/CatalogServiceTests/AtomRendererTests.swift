import Foundation
import Testing

@testable import CatalogService

/// The Atom renderer's own number writing, against what it replaced.
@Suite struct AtomRendererTests {
    @Test func ratingsHaveTwoDecimalsAsPrintfWritesThem() {
        var values: [Double] = [0, 1, 4.5, 4.125, 4.135, 2.005, 3.999, 4.995, 5]
        for stars in 1...5 {
            for count in 1...40 {
                for total in stars...(stars * count) where total <= 5 * count { values.append(Double(total) / Double(count)) }
            }
        }
        for value in values { #expect(AtomRenderer.twoDecimals(value) == String(format: "%.2f", value), "\(value)") }
    }

    @Test func xmlTextIsEscapedAndForbiddenCharactersDropped() {
        #expect(AtomRenderer.escape("Plain text, été") == "Plain text, été")
        #expect(AtomRenderer.escape("Tom & Jerry <\"1\"> 'x'") == "Tom &amp; Jerry &lt;&quot;1&quot;&gt; 'x'")
        #expect(AtomRenderer.escape("a\u{01}b\tc\nd\u{FFFE}e\u{FFFF}f\u{FFFD}") == "ab\tc\nd" + "ef\u{FFFD}")
        let bridged = String(NSString(string: "Bridged & <text>"))
        #expect(AtomRenderer.escape(bridged) == "Bridged &amp; &lt;text&gt;")
    }
}
