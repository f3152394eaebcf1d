import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// The query of a lane page (`/opds/lanes/{lane}`, a series, an author): its sort, order, facets, size and cursor,
/// read with bad values as 400 problem documents, and written back whole into the page's links.
struct LaneQuery {
    var sort: SortKey
    var order: SortOrder
    var availableOnly: Bool
    var accessibility: AccessibilityFacet
    var format: FormatFacet
    var size: Int
    var after: PageCursor?

    init(_ request: Request, lane: Lane) throws {
        let query = request.uri.queryParameters
        let sortText = query.get("sort")
        sort =
            try sortText.map {
                guard let key = SortKey(rawValue: $0), lane.sorts.contains(key) else {
                    throw Problem.badRequest("sort must be one of \(lane.sorts.map(\.rawValue)) in this lane")
                }
                return key
            } ?? lane.defaultSort
        order =
            try query.get("order").map {
                guard let value = SortOrder(rawValue: $0) else { throw Problem.badRequest("order must be asc or desc") }
                return value
            } ?? (sortText == nil ? lane.defaultOrder : .asc)
        availableOnly = try FeedRequest.availableOnly(query.get("available"))
        accessibility = try AccessibilityFacet(parameter: query.get("accessibility"))
        format = try FormatFacet(parameter: query.get("format"))
        size = try FeedRequest.pageSize(query.get("size"))
        if let text = query.get("after") {
            guard let cursor = PageCursor(encoded: text), cursor.sort == sort.rawValue, cursor.order == order.rawValue else {
                throw Problem.badRequest("after is not a cursor of this listing")
            }
            after = cursor
        }
    }

    /// The query as links write it: every facet spelled out, so each link names its page whatever the defaults.
    var queryString: QueryString {
        var query = QueryString()
        query.add("sort", sort.rawValue)
        query.add("order", order.rawValue)
        query.add("available", availableOnly ? "now" : "all")
        query.add("accessibility", accessibility.rawValue)
        // Only when chosen: every link of a lane read before formats existed keeps its bytes.
        if format != .all { query.add("format", format.rawValue) }
        query.add("size", size)
        query.add("after", after?.encoded)
        return query
    }

    /// The first page of this listing with one facet changed.
    func first(
        sort: SortKey? = nil,
        order: SortOrder? = nil,
        availableOnly: Bool? = nil,
        accessibility: AccessibilityFacet? = nil,
        format: FormatFacet? = nil
    ) -> LaneQuery {
        var query = self
        query.sort = sort ?? self.sort
        query.order = order ?? self.order
        query.availableOnly = availableOnly ?? self.availableOnly
        query.accessibility = accessibility ?? self.accessibility
        query.format = format ?? self.format
        query.after = nil
        return query
    }

    /// The page after this one.
    func next(_ cursor: PageCursor) -> LaneQuery {
        var query = self
        query.after = cursor
        return query
    }
}
