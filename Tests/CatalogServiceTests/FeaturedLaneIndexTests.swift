import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import CatalogService

/// The featured and staff-picks lanes, and any fixed lane with an accessibility facet, are read from an index of their
/// own books in every order (catalog migration 29), not by walking the order's index over every book and skipping the
/// others: at a million books page 1 of featured books by rating read ~42,000 rows (58 ms), the newest books that
/// declare no hazards ~32,000 (40 ms). These plans are the general statement's (`laneSelect`); `fixed_lane_page`
/// (migration 31) runs the same conditions as static statements, and `FixedLanePageTests` compares their pages.
extension CatalogServiceTests {
    @Test func theFeaturedAndStaffPicksLanesAreReadFromTheirOwnIndexInEveryOrder() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { _ in
            for slug in ["featured", "staff-picks"] {
                let lane = try #require(Lane.named(slug))
                // books_featured in date order (migration 2), books_featured_title, ... in the others.
                let prefix = "books_" + slug.replacingOccurrences(of: "-", with: "_")
                try await expectIndexes(lane, accessibility: .all, url: url) { $0 == .added ? prefix : "\(prefix)_\($0.rawValue)" }
            }
        }
    }

    @Test func aFixedLaneWithAnAccessibilityFacetIsReadFromTheFacetsIndexInEveryOrder() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { _ in
            for slug in ["new", "popular", "available"] {
                let lane = try #require(Lane.named(slug))
                for (facet, prefix) in [(AccessibilityFacet.screenReader, "books_screen_reader"), (.noHazards, "books_no_hazards")] {
                    try await expectIndexes(lane, accessibility: facet, url: url) { "\(prefix)_\($0.rawValue)" }
                }
            }
        }
    }

    /// Each of the lane's orders, both ways, has a plan through `index(order)`, read in order (sorting ruled out: a small
    /// catalog's few featured books would be read whole and sorted).
    func expectIndexes(_ lane: Lane, accessibility: AccessibilityFacet, url: String, index: (SortKey) -> String) async throws {
        for sort in lane.sorts {
            for order in [SortOrder.asc, .desc] {
                let plan = try await Self.lanePlan(
                    lane,
                    sort: sort,
                    order: order,
                    accessibility: accessibility,
                    ruledOut: ["enable_seqscan", "enable_sort"],
                    url: url
                )
                #expect(plan.contains("using \(index(sort)) on books"), "\(lane.slug) \(accessibility) by \(sort) \(order): \(plan)")
                #expect(!plan.contains("Seq Scan"), "\(lane.slug) \(accessibility) by \(sort) \(order): \(plan)")
            }
        }
    }
}
