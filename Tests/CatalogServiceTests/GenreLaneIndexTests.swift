import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import TestSupport
import Testing

@testable import CatalogService

/// A genre lane in any order is read from `genre_lane_books` (catalog migration 28), the genre's books with their sort
/// keys, kept by a trigger with the book: walking an order's index over every book and skipping the other genres took
/// 6 ms for page 10 of poetry by author at a million books (370 ms for the whole title order before migration 14).
extension CatalogServiceTests {
    @Test func everyGenreLaneOrderHasItsIndex() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { _ in
            let definitions = try await TestDatabase.query(
                "SELECT indexdef FROM pg_indexes WHERE tablename = 'genre_lane_books'",
                on: url
            )
            for sort in SortKey.allCases {
                guard let column = sort.genreLaneColumn else {
                    #expect(Lane.genre("poetry")?.sorts.contains(sort) == false, "\(sort) has no column: no genre lane offers it")
                    continue
                }
                #expect(definitions.contains { $0.hasSuffix("(genre, \(column), book_id) INCLUDE (available)") }, "\(sort): \(definitions)")
                // And the books of each accessibility facet in that order (migration 30), which `genre_lane_page` reads.
                for facet in AccessibilityFacet.allCases {
                    guard let flag = facet.condition else { continue }
                    let partial = "(genre, \(column), book_id) INCLUDE (available) WHERE \(flag)"
                    #expect(definitions.contains { $0.hasSuffix(partial) }, "\(sort) \(facet): \(definitions)")
                }
            }
            // Migration 14's partial indexes of books in title order are gone: the table serves title order too.
            let partial = try await TestDatabase.query("SELECT indexname FROM pg_indexes WHERE indexname LIKE 'books_genre_%_title'", on: url)
            #expect(partial.isEmpty, "\(partial)")
        }
    }

    /// An author's and a series' lane (every entry links both) are found by an index of their condition (migration 28):
    /// walking the title index over every book took 0.15-0.57 s at a million books. With the planner kept from reading
    /// the table or walking an index whole, each lane's statement still has a plan through its index; an author's lane
    /// asked as `name = ANY(authors)` would have none (the GIN index answers `authors @> ARRAY[name]` only).
    @Test func anAuthorsAndASeriesLaneAreFoundByIndex() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { _ in
            for (lane, index) in [(Lane.author("Ada Marsh"), "books_authors"), (Lane.series("The Saga"), "books_series")] {
                let plan = try await Self.lanePlan(
                    lane,
                    sort: lane.defaultSort,
                    order: lane.defaultOrder,
                    accessibility: .all,
                    ruledOut: ["enable_seqscan", "enable_indexscan"],
                    url: url
                )
                #expect(plan.contains(index) && !plan.contains("Seq Scan"), "\(lane.slug): \(plan)")
            }
        }
    }

    /// The plan of the first page of `lane` (`FeedPostgresRepository.laneSelect`) with the planner's `ruledOut` settings
    /// off: a small catalog's table is a page or two, which a plan would otherwise read whole, where a million books'
    /// would not.
    static func lanePlan(
        _ lane: Lane,
        sort: SortKey,
        order: CatalogService.SortOrder,
        accessibility: AccessibilityFacet,
        ruledOut: [String],
        url: String
    ) async throws -> String {
        var sql = FeedPostgresRepository.SQL()
        sql.text = try FeedPostgresRepository.laneSelect(
            lane,
            sort: sort,
            order: order,
            availableOnly: false,
            accessibility: accessibility,
            limit: 51,
            after: nil,
            hidden: nil,
            into: &sql
        )
        let query = PostgresQuery(unsafeSQL: "EXPLAIN " + sql.text, binds: sql.binds)
        return try await TestDatabase.withClient(url) { client, logger in
            try await client.withConnection { connection in
                for setting in ruledOut { try await connection.query(PostgresQuery(unsafeSQL: "SET \(setting) = off"), logger: logger) }
                var lines: [String] = []
                for try await line in try await connection.query(query, logger: logger).decode(String.self) { lines.append(line) }
                return lines.joined(separator: "\n")
            }
        }
    }

    /// Twelve books for the lane tests, of two genres (fiction, poetry), with ties in every sort key, a missing rating,
    /// books on loan, an open-access one, a withdrawn one (the seventh by id), featured and staff-picked books and books
    /// in each accessibility facet.
    func ingestLaneBooks(_ client: some TestClientProtocol, url: String) async throws {
        for number in 1...12 {
            _ = try await ingestBook(client, title: "Verse \(["A", "B", "C"][number % 3]) \(number)", author: "Poet \(number % 4)")
        }
        try await TestDatabase.execute(
            """
            WITH numbered AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM books)
            UPDATE books b SET
                genres = CASE WHEN n % 5 = 0 THEN ARRAY['fiction'] WHEN n % 3 = 0 THEN ARRAY['poetry', 'poetry', 'fiction']
                    ELSE ARRAY['poetry'] END,
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
    }

    /// Books of two genres with ties in every sort key, a missing rating, a book on loan, a withdrawn one and one with
    /// each accessibility facet: `FeedPostgresRepository.lane`'s pages of the poetry lane, followed by keyset, are the
    /// books' order computed on books, in every order, direction and facet, with and without a hidden book.
    @Test func aGenreLaneListsItsBooksInEveryOrderAndFacetAsTheBooksDo() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            try await ingestLaneBooks(client, url: url)
            let hidden = try #require(
                try await TestDatabase.query(
                    "SELECT id::text FROM books WHERE genres @> ARRAY['poetry'] AND withdrawn_at IS NULL ORDER BY id LIMIT 1 OFFSET 2",
                    on: url
                ).first.flatMap(UUID.init(uuidString:))
            )
            let lane = try #require(Lane.genre("poetry"))
            for sort in lane.sorts {
                for order in SortOrder.allCases {
                    for availableOnly in [false, true] {
                        for accessibility in AccessibilityFacet.allCases {
                            for hiding in [[], [hidden]] {
                                var conditions = ["withdrawn_at IS NULL", "genres @> ARRAY['poetry']"]
                                if availableOnly { conditions.append("(open_access OR copies_available > 0)") }
                                if let condition = accessibility.condition { conditions.append(condition) }
                                if !hiding.isEmpty { conditions.append("id <> '\(hidden)'") }
                                let direction = order == .asc ? "ASC" : "DESC"
                                let expected = try await TestDatabase.query(
                                    """
                                    SELECT id::text FROM books WHERE \(conditions.joined(separator: " AND "))
                                    ORDER BY \(sort.expression.sql) \(direction), id \(direction)
                                    """,
                                    on: url
                                )
                                let listed = try await TestDatabase.withClient(url) { client, logger in
                                    let feeds = FeedPostgresRepository(books: BookPostgresRepository(client: client))
                                    var ids: [String] = []
                                    var after: PageCursor?
                                    repeat {
                                        let page = try await feeds.lane(
                                            lane,
                                            sort: sort,
                                            order: order,
                                            availableOnly: availableOnly,
                                            accessibility: accessibility,
                                            size: 2,
                                            after: after,
                                            hidden: hiding,
                                            logger: logger
                                        )
                                        ids += page.books.map { $0.id.uuidString.lowercased() }
                                        after = page.next
                                    } while after != nil && ids.count < 20
                                    return ids
                                }
                                let facets = "\(sort) \(order) available \(availableOnly) \(accessibility) hiding \(hiding.count)"
                                #expect(listed == expected, "\(facets)")
                            }
                        }
                    }
                }
            }
            // The grouped feed's rows (every genre lane in one branch of its statement) are each lane's first page.
            let grouped = [try #require(Lane.genre("fiction")), try #require(Lane.named("new")), lane, try #require(Lane.genre("drama"))]
            for hiding in [[], [hidden]] {
                let (groups, pages) = try await TestDatabase.withClient(url) { client, logger in
                    let feeds = FeedPostgresRepository(books: BookPostgresRepository(client: client))
                    var pages: [[UUID]] = []
                    for lane in grouped {
                        pages.append(
                            try await feeds.lane(
                                lane,
                                sort: lane.defaultSort,
                                order: lane.defaultOrder,
                                availableOnly: false,
                                size: 3,
                                after: nil,
                                hidden: hiding,
                                logger: logger
                            ).books.map(\.id)
                        )
                    }
                    return (try await feeds.firstBooks(of: grouped, size: 3, hidden: hiding, logger: logger).map { $0.map(\.id) }, pages)
                }
                #expect(groups == pages && groups[0].count == 3 && groups[3].isEmpty, "hiding \(hiding.count)")
            }
            // A cursor edited to carry text where the order has dates or numbers is refused, as any other bad cursor.
            for (path, sort) in [
                ("/opds/lanes/genre-poetry", "added"), ("/opds/lanes/genre-poetry", "rating"), ("/opds/lanes/new", "length"),
                ("/opds/search?q=verse&", "added"),
            ] {
                let forged = PageCursor(value: "not a value", id: UUID(), sort: sort, order: "asc").encoded
                let uri = path + (path.hasSuffix("&") ? "" : "?") + "sort=\(sort)&order=asc&after=\(forged)"
                #expect(try await client.execute(uri: uri, method: .get) { $0.status } == .badRequest, "\(uri)")
            }
            // Series order is a series lane's: no other lane has an index in it.
            let series = try await client.execute(uri: "/opds/lanes/genre-poetry?sort=series", method: .get) { $0.status }
            #expect(series == .badRequest)
            #expect(try await client.execute(uri: "/opds/lanes/new?sort=series", method: .get) { $0.status } == .badRequest)
            #expect(try await client.execute(uri: "/opds/lanes/genre-poetry?sort=length&order=desc", method: .get) { $0.status } == .ok)
        }
    }

    /// What `genre_lane_books` must hold: a row for each genre of each book on the shelves with its sort keys and facet
    /// flags, computed here from books; a count of the rows that differ.
    static let genreLaneDifferences = """
        WITH expected AS (SELECT DISTINCT genre, b.id, b.sort_title, lower(b.sort_author), b.added_at, coalesce(b.rating_average, 0),
                b.popularity, b.word_count, b.open_access OR b.copies_available > 0, b.screen_reader_friendly, b.declares_no_hazards
            FROM books b, unnest(b.genres) genre WHERE b.withdrawn_at IS NULL)
        SELECT ((SELECT count(*) FROM (SELECT * FROM expected EXCEPT SELECT * FROM genre_lane_books) missing)
            + (SELECT count(*) FROM (SELECT * FROM genre_lane_books EXCEPT SELECT * FROM expected) extra)
            + (SELECT count(*) - count(DISTINCT (book_id, genre)) FROM genre_lane_books))::text
        """

    @Test func theGenreLaneRowsFollowEveryChangeOfTheirBook() async throws {
        let (app, url) = try await appAndDatabase()
        try await app.testRouter { client in
            let first = try await ingestBook(client, title: "Heron Bay", author: "Ada Marsh")
            _ = try await ingestBook(client, title: "Quiet Water", author: "Jane Heron")
            let id = first.replacingOccurrences(of: "urn:uuid:", with: "")
            try await TestDatabase.execute("UPDATE books SET genres = ARRAY['poetry']", on: url)
            #expect(try await TestDatabase.query("SELECT count(*)::text FROM genre_lane_books", on: url) == ["2"])
            let changes = [
                ("genres", "UPDATE books SET genres = ARRAY['poetry', 'history', 'poetry'] WHERE id = '\(id)'"),
                ("sort title", "UPDATE books SET sort_title = 'bay, heron' WHERE id = '\(id)'"),
                ("sort author", "UPDATE books SET sort_author = 'MARSH, ADA' WHERE id = '\(id)'"),
                ("rating", "UPDATE books SET rating_average = 4.5 WHERE id = '\(id)'"),
                ("rating gone", "UPDATE books SET rating_average = NULL WHERE id = '\(id)'"),
                ("popularity", "UPDATE books SET popularity = 12 WHERE id = '\(id)'"),
                ("length", "UPDATE books SET word_count = 5000 WHERE id = '\(id)'"),
                ("on loan", "UPDATE books SET copies_available = 0 WHERE id = '\(id)'"),
                ("open access", "UPDATE books SET open_access = true WHERE id = '\(id)'"),
                ("facets", "UPDATE books SET screen_reader_friendly = true, declares_no_hazards = true WHERE id = '\(id)'"),
                ("figures that change nothing kept", "UPDATE books SET checkouts = checkouts + 1, holds = 2 WHERE id = '\(id)'"),
                ("withdrawn", "UPDATE books SET withdrawn_at = now() WHERE id = '\(id)'"),
                ("withdrawn book renamed", "UPDATE books SET sort_title = 'heron inlet' WHERE id = '\(id)'"),
                ("back on the shelves", "UPDATE books SET withdrawn_at = NULL WHERE id = '\(id)'"),
                ("no genre", "UPDATE books SET genres = '{}' WHERE id = '\(id)'"),
                ("a genre again", "UPDATE books SET genres = ARRAY['drama'] WHERE id = '\(id)'"),
                ("deleted", "DELETE FROM books WHERE id = '\(id)'"),
            ]
            for (change, sql) in changes {
                try await TestDatabase.execute(sql, on: url)
                #expect(try await TestDatabase.query(Self.genreLaneDifferences, on: url) == ["0"], "\(change)")
            }
            #expect(try await TestDatabase.query("SELECT count(*)::text FROM genre_lane_books", on: url) == ["1"])
        }
    }
}
