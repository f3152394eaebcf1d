import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import TestSupport
import Testing

@testable import CatalogService

/// A fixed lane's page is read by `fixed_lane_page` (catalog migration 31), one static statement per lane, order,
/// facet, direction and start, planned once a session, where the general statement was planned at every request
/// (~100 us of PostgreSQL's ~250 a page at a million books). Its lanes' conditions are written in the migration: each
/// of `Lane.fixed`, in every order, direction and facet, must list what the general statement lists.
extension CatalogServiceTests {
    @Test func everyFixedLaneIsReadByItsFunction() throws {
        for lane in Lane.fixed {
            for sort in lane.sorts { #expect(FeedPostgresRepository.FixedLanePage.serves(lane, sort: sort), "\(lane.slug) \(sort)") }
        }
        #expect(!FeedPostgresRepository.FixedLanePage.serves(Lane.author("Poet 1"), sort: .title))
        #expect(!FeedPostgresRepository.FixedLanePage.serves(Lane.series("Verses"), sort: .seriesPosition))
        #expect(!FeedPostgresRepository.FixedLanePage.serves(try #require(Lane.genre("poetry")), sort: .title))
    }

    /// The lane books (`ingestLaneBooks`): every fixed lane's pages, followed by keyset, are the lane's whole list by the
    /// general statement (`generalLaneRows`), in every order, direction and facet, with and without available-now, and
    /// with a hidden book; and they come from `fixed_lane_page`.
    @Test func aFixedLaneListsItsBooksInEveryOrderAndFacetAsTheGeneralStatementDoes() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            try await ingestLaneBooks(client, url: url)
            let hidden = try #require(
                try await TestDatabase.query(
                    "SELECT id::text FROM books WHERE withdrawn_at IS NULL AND staff_pick ORDER BY id LIMIT 1 OFFSET 2",
                    on: url
                ).first.flatMap(UUID.init(uuidString:))
            )
            try await TestDatabase.withClient(url) { postgres, logger in
                let feeds = FeedPostgresRepository(books: BookPostgresRepository(client: postgres))
                let combinations = Lane.fixed.flatMap { lane in
                    lane.sorts.flatMap { sort in
                        SortOrder.allCases.flatMap { order in
                            [false, true].flatMap { availableOnly in
                                AccessibilityFacet.allCases.flatMap { accessibility in
                                    (accessibility == .all ? [[], [hidden]] : [[]]).map { (lane, sort, order, availableOnly, accessibility, $0) }
                                }
                            }
                        }
                    }
                }
                for (lane, sort, order, availableOnly, accessibility, hiding) in combinations {
                    let expected = try await feeds.generalLaneRows(
                        lane,
                        sort: sort,
                        order: order,
                        availableOnly: availableOnly,
                        accessibility: accessibility,
                        limit: 100,
                        after: nil,
                        hidden: hiding,
                        logger: logger
                    ).map(\.0.id)
                    var listed: [UUID] = []
                    var after: PageCursor?
                    repeat {
                        let page = try await feeds.lane(
                            lane,
                            sort: sort,
                            order: order,
                            availableOnly: availableOnly,
                            accessibility: accessibility,
                            size: 3,
                            after: after,
                            hidden: hiding,
                            logger: logger
                        )
                        listed += page.books.map(\.id)
                        after = page.next
                    } while after != nil && listed.count < 20
                    let facets = "\(lane.slug) \(sort) \(order) available \(availableOnly) \(accessibility) hiding \(hiding.count)"
                    #expect(listed == expected, "\(facets)")
                    #expect(!expected.isEmpty || availableOnly || accessibility != .all, "\(facets): no books to compare")
                }
                // The pages above came from the function: without it a fixed lane has none, while a genre's and an
                // author's lanes (their own function, the general statement) still answer.
                try await postgres.query("DROP FUNCTION fixed_lane_page", logger: logger)
                for lane in Lane.fixed {
                    await #expect(throws: (any Error).self, "\(lane.slug)") {
                        try await feeds.lane(lane, sort: .title, order: .asc, availableOnly: false, size: 3, after: nil, hidden: [], logger: logger)
                    }
                }
                for lane in [try #require(Lane.genre("poetry")), Lane.author("Poet 1")] {
                    let page = try await feeds.lane(
                        lane,
                        sort: .title,
                        order: .asc,
                        availableOnly: false,
                        size: 3,
                        after: nil,
                        hidden: [],
                        logger: logger
                    )
                    #expect(!page.books.isEmpty, "\(lane.slug)")
                }
            }
        }
    }
}
