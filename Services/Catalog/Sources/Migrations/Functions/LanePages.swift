import PostgresSupport

extension CatalogFunction {
    /// A fixed lane's page (`FeedPostgresRepository.FixedLanePage`): the rows of `size` books of lane `lane_slug` in
    /// `sort_key`'s order after the cursor (none: from the start), with facet `facet` (a column of
    /// `AccessibilityFacet.condition`, or '' for none). One static statement per lane, order, facet, direction and
    /// start, each planned once a session from its index: the general statement, sent unnamed and planned at every
    /// request, spent ~100 us of PostgreSQL's ~250 a page at a million books. It returns the books' rows, so that the
    /// caller selects an entry's columns from them as from `books` (a function that returned ids joined back to `books`
    /// made 8,700 pages a second, its rows 10,500). Written from `Lane.fixed`, `SortKey.expression` and
    /// `AccessibilityFacet` (`FixedLanePageTests` compares every lane, order and facet with the general statement).
    static let fixedLanePage = DatabaseFunction(
        name: "fixed_lane_page",
        sql: LanePages.function(
            signature: """
                fixed_lane_page(lane_slug text, sort_key text, facet text, descending boolean, available_only boolean,
                        hidden uuid[], after_value text, after_id uuid, size int)
                    RETURNS SETOF books
                """,
            branches: Lane.fixed.map { lane in
                LanePages.branch(
                    "lane_slug = '\(lane.slug)'",
                    LanePages.orders.map { key in
                        LanePages.branch(
                            "sort_key = '\(key.rawValue)'",
                            LanePages.facets.map { facet in
                                LanePages.statements(
                                    when: "facet = '\(facet)'",
                                    select: "books.* FROM books",
                                    filter: "withdrawn_at IS NULL AND \(lane.condition)\(facet.isEmpty ? "" : " AND \(facet)")"
                                        + " AND (open_access OR copies_available > 0 OR NOT available_only) AND NOT (id = ANY(hidden))",
                                    key: key.expression.sql,
                                    type: key.expression.type,
                                    id: "id"
                                )
                            }
                        )
                    }
                )
            },
            otherwise: "RAISE EXCEPTION 'no fixed lane % in order % with facet %', lane_slug, sort_key, facet;"
        )
    )

    /// A genre lane's page (`FeedPostgresRepository.GenreLanePage`): the ids and cursor values of `size` books of
    /// `lane_genre` in the order of column `lane_key` of `genre_lane_books` after the cursor, with facet `facet` as
    /// above; one static statement per order, facet, direction and start, each reading its index (catalog migrations 28
    /// and 30): a genre page with a facet was the general statement, 1.1 ms of PostgreSQL's time at a million books
    /// against 0.44 ms without. Written from `SortKey.genreLaneColumn` and `AccessibilityFacet`.
    static let genreLanePage = DatabaseFunction(
        name: "genre_lane_page",
        sql: LanePages.function(
            signature: """
                genre_lane_page(lane_genre text, lane_key text, facet text, descending boolean, available_only boolean,
                        hidden uuid[], after_value text, after_id uuid, size int)
                    RETURNS TABLE (book_id uuid, cursor_value text)
                """,
            branches: LanePages.facets.flatMap { facet in
                LanePages.orders.compactMap { key in
                    key.genreLaneColumn.map { column in
                        LanePages.statements(
                            when: "lane_key = '\(column)' AND facet = '\(facet)'",
                            select: "g.book_id, g.\(column)::text FROM genre_lane_books g",
                            filter: "g.genre = lane_genre\(facet.isEmpty ? "" : " AND g.\(facet)")"
                                + " AND (g.available OR NOT available_only) AND NOT (g.book_id = ANY(hidden))",
                            key: "g.\(column)",
                            type: key.expression.type,
                            id: "g.book_id"
                        )
                    }
                }
            },
            otherwise: "RAISE EXCEPTION 'genre_lane_books has no lane order % with facet %', lane_key, facet;"
        )
    )
}

/// The PL/pgSQL of the lane page functions: nested `IF`s down to four static statements (the first page and a page
/// after a cursor, each way up), so that PostgreSQL plans each once a session.
enum LanePages {
    /// Every order but series order, which only a series lane offers.
    static let orders = SortKey.allCases.filter { $0 != .seriesPosition }
    /// The facets' columns, '' for no facet.
    static let facets = AccessibilityFacet.allCases.map { $0.condition ?? "" }

    static func function(signature: String, branches: [String], otherwise: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(signature)
            LANGUAGE plpgsql STABLE ROWS 50 SET plan_cache_mode = force_generic_plan AS $$
            BEGIN
        \(branches.joined(separator: "\n"))
                \(otherwise)
            END
            $$;
        """
    }

    static func branch(_ condition: String, _ inner: [String]) -> String {
        "IF \(condition) THEN\n\(inner.joined(separator: "\n"))\nEND IF;"
    }

    static func statements(when branch: String, select: String, filter: String, key: String, type: String, id: String) -> String {
        func query(_ cursor: String, _ direction: String) -> String {
            "RETURN QUERY SELECT \(select) WHERE \(filter)\(cursor) ORDER BY \(key)\(direction), \(id)\(direction) LIMIT size;"
        }
        return """
            IF \(branch) THEN
                IF after_id IS NULL AND NOT descending THEN \(query("", ""))
                ELSIF after_id IS NULL THEN \(query("", " DESC"))
                ELSIF NOT descending THEN \(query(" AND (\(key), \(id)) > (after_value::\(type), after_id)", ""))
                ELSE \(query(" AND (\(key), \(id)) < (after_value::\(type), after_id)", " DESC"))
                END IF;
                RETURN;
            END IF;
            """
    }
}
