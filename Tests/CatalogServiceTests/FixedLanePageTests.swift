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

    /// Books with ties in every sort key, a missing rating, books on loan, a withdrawn one, featured and staff-picked
    /// books and each accessibility facet: every fixed lane's pages, followed by keyset, are the lane's books in the
    /// order computed on books (the general statement, `laneSelect`, with no limit), in every order, direction and
    /// facet, with and without available-now, and with a hidden book.
    @Test func aFixedLaneListsItsBooksInEveryOrderAndFacetAsTheGeneralStatementDoes() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            for number in 1...12 {
                _ = try await ingestBook(client, title: "Verse \(["A", "B", "C"][number % 3]) \(number)", author: "Poet \(number % 4)")
            }
            try await TestDatabase.execute(
                """
                WITH numbered AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM books)
                UPDATE books b SET
                    sort_title = CASE WHEN n % 4 = 0 THEN 'same title' ELSE sort_title END,
                    rating_average = CASE WHEN n % 3 = 0 THEN NULL ELSE (n % 2) + 3.5 END,
                    popularity = n % 3, word_count = 1000 * (n % 2), added_at = timestamptz '2026-01-01' + (n % 4) * interval '1 day',
                    copies_available = CASE WHEN n % 4 = 1 THEN 0 ELSE copies_available END, open_access = n = 5,
                    featured = n % 3 = 0, staff_pick = n % 4 <> 1,
                    screen_reader_friendly = n % 3 = 1, declares_no_hazards = n % 5 = 2,
                    withdrawn_at = CASE WHEN n = 7 THEN now() END
                FROM numbered WHERE b.id = numbered.id
                """,
                on: url
            )
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
                    let expected = try await Self.generalLaneStatement(
                        lane,
                        sort: sort,
                        order: order,
                        availableOnly: availableOnly,
                        accessibility: accessibility,
                        hidden: hiding,
                        feeds: feeds,
                        logger: logger
                    )
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
            }
        }
    }

    /// The ids of a lane's whole list by the general statement (planned for its values, as every fixed lane's page was
    /// before migration 31).
    static func generalLaneStatement(
        _ lane: Lane,
        sort: SortKey,
        order: CatalogService.SortOrder,
        availableOnly: Bool,
        accessibility: AccessibilityFacet,
        hidden: [UUID],
        feeds: FeedPostgresRepository,
        logger: Logger
    ) async throws -> [UUID] {
        var sql = FeedPostgresRepository.SQL()
        let hiddenPlaceholder = hidden.isEmpty ? nil : try sql.bind(hidden)
        sql.text = try FeedPostgresRepository.laneSelect(
            lane,
            sort: sort,
            order: order,
            availableOnly: availableOnly,
            accessibility: accessibility,
            limit: 100,
            after: nil,
            hidden: hiddenPlaceholder,
            into: &sql
        )
        return try await feeds.books.entries(sql.query, logger: logger).map(\.id)
    }
}
