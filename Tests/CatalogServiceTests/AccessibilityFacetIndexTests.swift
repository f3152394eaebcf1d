import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import CatalogService

/// A lane with an accessibility facet reads the books with the facet from an index of their own (migration 27): walking
/// a sort's index and skipping the books without it took 0.5 s a page at a million books when few had it
/// (docs/PERFORMANCE.md), 3-4 ms with the index. Each index's condition is the facet's.
extension CatalogServiceTests {
    @Test func everyAccessibilityFacetHasAnIndexOfItsBooks() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { _ in
            for facet in AccessibilityFacet.allCases {
                guard let condition = facet.condition else { continue }
                let definitions = try await TestDatabase.query(
                    "SELECT indexdef FROM pg_indexes WHERE tablename = 'books' AND indexname = 'books_\(condition)'",
                    on: url
                )
                #expect(definitions.count == 1, "\(facet)")
                #expect(definitions.first?.contains("WHERE (\(condition) AND (withdrawn_at IS NULL))") == true, "\(definitions)")
            }
        }
    }
}
