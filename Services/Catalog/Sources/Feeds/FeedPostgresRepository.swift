import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceSupport
import Shared

/// The SQL behind lanes, groups and search. User input only ever reaches SQL as bind parameters.
struct FeedPostgresRepository: Sendable {
    let books: BookPostgresRepository

    struct Page: StoredSource {
        var books: [BookEntry]
        /// The next page starts after this book (keyset paging).
        var next: PageCursor?
        var total: Int?
        /// The next page by number, for a short list that is computed whole on every request and has no cursor.
        var nextPage: Int?
        /// The book read after the page's last (it says there is a next page).
        var lookahead: UUID?
        /// A search's list topped up with corrected matches (typos): the page of another list than its query's own.
        var corrected = false
        /// A shared lane page's rows read a few past its lookahead (`spareRows`): a patron hiding some of its books gets
        /// their page from them (`hiding(_:)`) instead of the lane read again for them.
        var readAhead: ReadAhead?

        /// Every row a lane page read, in order, with the cursor value that continues after it.
        struct ReadAhead: Sendable {
            var rows: [(BookEntry, String)]
            var size: Int
            var sort: SortKey
            var order: SortOrder
            /// Fewer rows came back than were asked for: they run to the lane's end.
            var reachesEnd: Bool
        }

        /// What the page's rows take in memory, kept with the shared page in the feed cache.
        var bytes: Int { books.reduce(0) { $0 + $1.approximateBytes } + spareBytes }

        /// What the rows read past the page's books take (`readAhead`): the rendered page shares the others' storage.
        var spareBytes: Int { readAhead?.rows.dropFirst(books.count).reduce(0) { $0 + $1.0.approximateBytes } ?? 0 }

        /// Whether a lane's page read without hiding any book is also its page with `hidden` hidden: none of them is
        /// among the books it read (its own and the one after them, which decides its next link).
        func isUnchanged(byHiding hidden: [UUID]) -> Bool {
            hidden.allSatisfy { id in id != lookahead && !books.contains { $0.id == id } }
        }

        /// A lane's page read without hiding any book, as the page of a patron who hides `hidden`: itself when none of
        /// them is among its books; else its rows without them, when enough rows were read past the page to fill it (or
        /// they reach the lane's end): the very page the lane read with them hidden gives. nil when it cannot tell.
        func hiding(_ hidden: [UUID]) -> Page? {
            if isUnchanged(byHiding: hidden) { return self }
            guard let ahead = readAhead else { return nil }
            let hiddenIDs = Set(hidden)
            let kept = ahead.rows.filter { !hiddenIDs.contains($0.0.id) }
            guard kept.count > ahead.size || ahead.reachesEnd else { return nil }
            return .first(ahead.size, of: kept, sort: ahead.sort, order: ahead.order)
        }

        /// The page of the first `size` of `rows` (books with their cursor values, in `sort` and `order`): its next
        /// cursor after its last book and its lookahead when a row follows them.
        static func first(_ size: Int, of rows: [(BookEntry, String)], sort: SortKey, order: SortOrder) -> Page {
            let more = rows.count > size
            let shown = rows.prefix(size)
            let next = more ? shown.last.map { PageCursor(value: $0.1, id: $0.0.id, sort: sort.rawValue, order: order.rawValue) } : nil
            return Page(books: shown.map(\.0), next: next, total: nil, lookahead: more ? rows[size].0.id : nil)
        }

        /// A search's page read without hiding any book, as the page of a patron who hides `hidden`, `matching` of
        /// which the search matches (`matchCount`): itself when none does. Otherwise, when it ranked every match (it has
        /// a total), is the first page or continues after a cursor (no offset that a hidden book ranked earlier would
        /// shift) and none of them is among the books it read, the same books with `matching` fewer results, as long as
        /// they stay past the few that corrections would top up; else nil (read it again with them hidden).
        func hiding(_ hidden: [UUID], matching: Int, in request: SearchRequest) -> Page? {
            if matching == 0 { return self }
            guard !corrected, let total, total - matching >= FeedPostgresRepository.fewMatches, request.page == 1 || request.after != nil,
                isUnchanged(byHiding: hidden)
            else { return nil }
            var page = self
            page.total = total - matching
            return page
        }
    }

    /// A builder of SQL text with numbered bind parameters.
    struct SQL {
        var text = ""
        var binds = PostgresBindings()
        var count = 0

        mutating func bind<T: PostgresEncodable & Sendable>(_ value: T) throws -> String {
            try binds.append(value)
            count += 1
            return "$\(count)"
        }

        var query: PostgresQuery { PostgresQuery(unsafeSQL: text, binds: binds) }

        /// The condition that keeps the rows after `cursor` in `sort` and `order` (ties broken by id): of books, or
        /// (`expression` and `id` given) of another table that holds the sort's value.
        mutating func after(_ cursor: PageCursor, sort: SortKey, order: SortOrder, expression: String? = nil, id: String = "id") throws -> String {
            let (bookExpression, type) = sort.expression
            let key = expression ?? bookExpression
            return "(\(key), \(id)) \(order == .asc ? ">" : "<") (\(try bind(cursor.value))::\(type), \(try bind(cursor.id)))"
        }
    }

    /// The rows a shared lane page reads past its lookahead, so that a patron hiding up to this many of them gets their
    /// page without the lane read again (`Page.hiding(_:)`; issue 72: a book hidden on a page cost a query per request).
    static let spareRows = 5

    /// One page of `lane`, keyset-paginated by (sort value, id): stable under concurrent inserts. `spare` rows more are
    /// read past the page's lookahead and kept with it (`Page.readAhead`).
    func lane(
        _ lane: Lane,
        sort: SortKey,
        order: SortOrder,
        availableOnly: Bool,
        accessibility: AccessibilityFacet = .all,
        format: FormatFacet = .all,
        audience: AudienceLimit? = nil,
        size: Int,
        after: PageCursor?,
        hidden: [UUID],
        spare: Int = 0,
        logger: Logger
    ) async throws -> Page {
        let rows: [(BookEntry, String)]
        // Both functions take the lane, its order, then the same facets, hidden books, cursor and size.
        func values(_ lane: String, _ key: String) -> [(any PostgresThrowingDynamicTypeEncodable)?] {
            [lane, key, accessibility.condition ?? "", order == .desc, availableOnly, hidden, after?.value, after?.id, size + 1 + spare]
        }
        // A format facet is read by the general statement: the lanes' functions and `genre_lane_books` know no format
        // (audiobooks and PDFs have partial indexes of their own, migration 38), nor audiences (a teen's or a child's card).
        let general = format != .all || audience != nil
        if !general, let genre = lane.genre, let column = sort.genreLaneColumn {
            nonisolated(unsafe) let bound = values(genre, column)  // plain values, read by the read's own task only
            rows = try await books.read { try await Self.entriesWithCursors(try await $0.run(GenreLanePage.self, values: bound, logger: logger)) }
        } else if !general, FixedLanePage.serves(lane, sort: sort) {
            nonisolated(unsafe) let bound = values(lane.slug, sort.rawValue)  // plain values, read by the read's own task only
            rows = try await books.read { try await Self.entriesWithCursors(try await $0.run(FixedLanePage.self, values: bound, logger: logger)) }
        } else {
            rows = try await generalLaneRows(
                lane,
                sort: sort,
                order: order,
                availableOnly: availableOnly,
                accessibility: accessibility,
                format: format,
                audience: audience,
                limit: size + 1 + spare,
                after: after,
                hidden: hidden,
                logger: logger
            )
        }
        var result = Page.first(size, of: rows, sort: sort, order: order)
        if spare > 0 {
            result.readAhead = Page.ReadAhead(
                rows: rows,
                size: size,
                sort: sort,
                order: order,
                reachesEnd: rows.count < size + 1 + spare
            )
        }
        return result
    }

    /// At most `limit` rows of `lane` after `after` by the general statement (`laneSelect`, planned for its values at
    /// every run): the lanes of an author or a series, and any lane in an order its function does not have. Each row is
    /// a book's entry and its cursor value.
    func generalLaneRows(
        _ lane: Lane,
        sort: SortKey,
        order: SortOrder,
        availableOnly: Bool,
        accessibility: AccessibilityFacet,
        format: FormatFacet = .all,
        audience: AudienceLimit? = nil,
        limit: Int,
        after: PageCursor?,
        hidden: [UUID],
        logger: Logger
    ) async throws -> [(BookEntry, String)] {
        var sql = SQL()
        let hiddenPlaceholder = hidden.isEmpty ? nil : try sql.bind(hidden)
        sql.text = try Self.laneSelect(
            lane,
            sort: sort,
            order: order,
            availableOnly: availableOnly,
            accessibility: accessibility,
            format: format,
            audience: audience,
            limit: limit,
            after: after,
            hidden: hiddenPlaceholder,
            into: &sql
        )
        let query = sql.query
        return try await books.read { try await Self.entriesWithCursors(try await $0.query(query, logger: logger)) }
    }

    /// $1 genre, $2 the order's column of `genre_lane_books`, $3 the accessibility facet's column ('' for none), $4
    /// descending, $5 available only, $6 the books the patron hid, $7 and $8 the cursor's value and id (NULL: the first
    /// page), $9 how many: a genre lane's page, its rows found by `genre_lane_page` (catalog migrations 28 and 30; planned
    /// once per session, each order and facet from its own index), each book's entry columns and its cursor value.
    enum GenreLanePage: PreparedSQL {
        static let sql = """
            SELECT \(BookPostgresRepository.entryColumns), page.cursor_value
            FROM (SELECT * FROM genre_lane_page($1::text, $2::text, $3::text, $4::boolean, $5::boolean, $6::uuid[], $7::text, $8::uuid, $9::int4)
                WITH ORDINALITY) page
            JOIN books ON books.id = page.book_id
            ORDER BY page.ordinality
            """
    }

    /// $1 a fixed lane's slug, $2 the order (`SortKey`'s raw value), $3 the accessibility facet's column ('' for none), $4
    /// descending, $5 available only, $6 the books the patron hid, $7 and $8 the cursor's value and id (NULL: the first
    /// page), $9 how many: a page of one of `Lane.fixed`, its books' rows read by `fixed_lane_page` (catalog migration 31;
    /// planned once per session, each lane, order and facet from its own index), each book's entry columns and its
    /// cursor value (the order's expression, as the general statement writes it).
    enum FixedLanePage: PreparedSQL {
        static let sql = """
            SELECT \(BookPostgresRepository.entryColumns), \(cursorValue)
            FROM fixed_lane_page($1::text, $2::text, $3::text, $4::boolean, $5::boolean, $6::uuid[], $7::text, $8::uuid, $9::int4)
                WITH ORDINALITY books
            ORDER BY books.ordinality
            """

        /// The value of the order $2 names, as text.
        static let cursorValue =
            "CASE $2::text " + SortKey.allCases.map { "WHEN '\($0.rawValue)' THEN (\($0.expression.sql))::text " }.joined() + "END"

        /// Whether `fixed_lane_page` has the lane's page in that order (series order: a series lane only).
        static func serves(_ lane: Lane, sort: SortKey) -> Bool { sort != .seriesPosition && Lane.fixed.contains(lane) }
    }

    /// The rows of a lane's page: each book's entry and, after its columns, its cursor value.
    private static func entriesWithCursors(_ rows: some AsyncSequence<PostgresRow, any Error>) async throws -> [(BookEntry, String)] {
        var entries: [(BookEntry, String)] = []
        for try await row in rows {
            let cells = row.makeRandomAccess()
            entries.append((try BookPostgresRepository.decodeEntry(cells), try cells[BookPostgresRepository.entryColumnCount].decode(String.self)))
        }
        return entries
    }

    /// The first `size` books of each lane in its default order, in one statement (a grouped feed asks for ~20 lanes:
    /// one statement planned and sent instead of one each), in the order of `lanes`.
    func firstBooks(of lanes: [Lane], size: Int, hidden: [UUID], audience: AudienceLimit? = nil, logger: Logger) async throws -> [[BookEntry]] {
        guard !lanes.isEmpty else { return [] }
        var sql = SQL()
        let hiddenPlaceholder = hidden.isEmpty ? nil : try sql.bind(hidden)
        var branches: [String] = []
        var genreLanes: [(genre: String, index: Int)] = []
        for (index, lane) in lanes.enumerated() {
            if audience == nil, let genre = lane.genre, lane.defaultSort == .title, lane.defaultOrder == .asc {
                genreLanes.append((genre, index))
                continue
            }
            let select = try Self.laneSelect(
                lane,
                sort: lane.defaultSort,
                order: lane.defaultOrder,
                availableOnly: false,
                accessibility: .all,
                audience: audience,
                limit: size,
                after: nil,
                hidden: hiddenPlaceholder,
                into: &sql
            )
            // Numbered in the lane's order, which the union need not keep.
            branches.append("SELECT lane.*, \(index) AS lane_index, row_number() OVER () AS position FROM (\(select)) lane")
        }
        if !genreLanes.isEmpty {
            // Every genre lane in one branch, each genre's first books read from its title index (a branch a genre
            // was planned at every request: a third of a grouped feed's time in PostgreSQL).
            let hiddenCondition = hiddenPlaceholder.map { " AND NOT (g.book_id = ANY(\($0)))" } ?? ""
            branches.append(
                """
                SELECT \(BookPostgresRepository.entryColumns), p.sort_title::text AS cursor_value, l.lane_index,
                    row_number() OVER (PARTITION BY l.lane_index ORDER BY p.sort_title, p.book_id) AS position
                FROM unnest(\(try sql.bind(genreLanes.map(\.genre)))::text[], \(try sql.bind(genreLanes.map(\.index)))::int8[]) AS l (genre, lane_index)
                CROSS JOIN LATERAL (SELECT g.book_id, g.sort_title FROM genre_lane_books g WHERE g.genre = l.genre\(hiddenCondition)
                    ORDER BY g.sort_title, g.book_id LIMIT \(size)) p
                JOIN books ON books.id = p.book_id
                """
            )
        }
        sql.text = branches.map { "(\($0))" }.joined(separator: "\nUNION ALL ") + "\nORDER BY lane_index, position"
        let query = sql.query
        return try await books.read { client in
            var pages = Array(repeating: [BookEntry](), count: lanes.count)
            for try await row in try await client.query(query, logger: logger) {
                let cells = row.makeRandomAccess()
                let index = try cells[BookPostgresRepository.entryColumnCount + 1].decode(Int.self)
                pages[index].append(try BookPostgresRepository.decodeEntry(cells))
            }
            return pages
        }
    }

    /// The statement of `limit` books of `lane` in `sort` and `order` after `after`, but those bound at `hidden`: their
    /// entry columns and the sort value as text (a page's cursor).
    static func laneSelect(
        _ lane: Lane,
        sort: SortKey,
        order: SortOrder,
        availableOnly: Bool,
        accessibility: AccessibilityFacet,
        format: FormatFacet = .all,
        audience: AudienceLimit? = nil,
        limit: Int,
        after: PageCursor?,
        hidden: String?,
        into sql: inout SQL
    ) throws -> String {
        let direction = order == .asc ? "ASC" : "DESC"
        if format == .all, audience == nil, let genre = lane.genre, let column = sort.genreLaneColumn {
            // The page's rows read in order from `genre_lane_books`'s index of the genre in the column's order (it keeps
            // only books on the shelves, with the same facet flags as books'), then those books by id.
            var conditions = ["genre = \(try sql.bind(genre))"]
            if availableOnly { conditions.append("available") }
            if let condition = accessibility.condition { conditions.append(condition) }
            if let hidden { conditions.append("NOT (book_id = ANY(\(hidden)))") }
            if let after { conditions.append(try sql.after(after, sort: sort, order: order, expression: column, id: "book_id")) }
            return """
                SELECT \(BookPostgresRepository.entryColumns), page.cursor_value FROM (
                    SELECT book_id, \(column) AS lane_key, \(column)::text AS cursor_value FROM genre_lane_books
                    WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(column) \(direction), book_id \(direction) LIMIT \(limit)
                ) page JOIN books ON books.id = page.book_id
                ORDER BY page.lane_key \(direction), page.book_id \(direction)
                """
        }
        let expression = sort.expression.sql
        var condition = lane.condition
        if let value = lane.value { condition = condition.replacingOccurrences(of: "$VALUE", with: try sql.bind(value)) }
        var conditions = ["withdrawn_at IS NULL", condition]
        if availableOnly { conditions.append("(open_access OR copies_available > 0)") }
        if let condition = accessibility.condition { conditions.append(condition) }
        if let condition = format.condition { conditions.append(condition) }
        if let audience { conditions.append(audience.condition) }
        if let hidden { conditions.append("NOT (id = ANY(\(hidden)))") }
        if let after { conditions.append(try sql.after(after, sort: sort, order: order)) }
        return """
            SELECT \(BookPostgresRepository.entryColumns), (\(expression))::text AS cursor_value FROM books WHERE \(conditions.joined(separator: " AND "))
            ORDER BY \(expression) \(direction), id \(direction) LIMIT \(limit)
            """
    }

    /// Books for a patron who liked `liked`: first those co-borrowed with them, then the rest of their series, then
    /// more by their authors, then more of their genres, popular ones first within each; never `excluding`.
    func recommended(liked: [UUID], coBorrowed: [UUID], excluding: [UUID], size: Int, logger: Logger) async throws -> [BookEntry] {
        guard !liked.isEmpty || !coBorrowed.isEmpty else { return [] }
        return try await books.entries(
            """
            WITH liked AS (SELECT authors, series, genres FROM books WHERE id = ANY(\(liked))),
            taste AS (SELECT ARRAY(SELECT DISTINCT unnest(authors) FROM liked) AS authors,
                ARRAY(SELECT DISTINCT series FROM liked WHERE series IS NOT NULL) AS series,
                ARRAY(SELECT DISTINCT unnest(genres) FROM liked) AS genres),
            scored AS (
                SELECT b.id AS pick, b.popularity,
                    CASE WHEN b.id = ANY(\(coBorrowed)) THEN 8 ELSE 0 END + CASE WHEN b.series = ANY(t.series) THEN 4 ELSE 0 END
                    + CASE WHEN b.authors && t.authors THEN 2 ELSE 0 END + CASE WHEN b.genres && t.genres THEN 1 ELSE 0 END AS score
                FROM books b, taste t
                WHERE b.withdrawn_at IS NULL AND NOT (b.id = ANY(\(excluding)))
                AND (b.id = ANY(\(coBorrowed)) OR b.series = ANY(t.series) OR b.authors && t.authors OR b.genres && t.genres)
                ORDER BY score DESC, popularity DESC, pick LIMIT \(size))
            SELECT \(unescaped: BookPostgresRepository.entryColumns) FROM scored JOIN books ON books.id = scored.pick
            ORDER BY score DESC, scored.popularity DESC, pick
            """,
            logger: logger
        )
    }

    /// The genre lanes that have at least one book.
    func genreLanes(logger: Logger) async throws -> [Lane] {
        // Counted by triggers on books (migration 5), not probed here.
        let present = try await books.read { client in
            var present = Set<String>()
            for try await genre in try await client.query("SELECT genre FROM genre_counts WHERE books > 0", logger: logger).decode(String.self) {
                present.insert(genre)
            }
            return present
        }
        return Genres.all.filter { present.contains($0.slug) }.compactMap { Lane.genre($0.slug) }
    }
}
