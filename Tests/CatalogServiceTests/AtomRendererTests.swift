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
}
