import Foundation
import Hummingbird
import ServiceSupport
import Shared

/// The query of `/opds/search`: read into a `SearchRequest` with bad values as 400 problem documents, and written
/// back into the results' links.
extension FeedPostgresRepository.SearchRequest {
    /// The fields that search: any one of them makes a search (none: the OpenSearch description is answered).
    static let fields = ["q", "query", "title", "author", "genre", "publisher", "language", "isbn"]

    /// Whether the request names anything to search for.
    static func searches(_ request: Request) -> Bool {
        let query = request.uri.queryParameters
        return fields.contains { query.get($0) != nil }
    }

    init(_ request: Request) throws {
        let query = request.uri.queryParameters
        for field in Self.fields {
            if let value = query.get(field), value.count > 1000 || value.unicodeScalars.contains(where: { $0.value < 0x20 }) {
                throw Problem.badRequest("\(field) must be at most 1000 printable characters")
            }
        }
        self.init()
        // `query` is what OPDS 2.0's templated search link (`/opds/search{?query}`) sends; `q` is OpenSearch's.
        q = query.get("q") ?? query.get("query")
        title = query.get("title")
        author = query.get("author")
        genre = query.get("genre")
        publisher = query.get("publisher")
        language = query.get("language")
        isbn = query.get("isbn")
        availableOnly = try FeedRequest.availableOnly(query.get("available"))
        accessibility = try AccessibilityFacet(parameter: query.get("accessibility"))
        format = try FormatFacet(parameter: query.get("format"))
        audience = try FeedRequest.audienceLimit(request)
        if let text = query.get("sort"), text != "relevance" {
            guard let key = SortKey(rawValue: text) else {
                throw Problem.badRequest("sort must be relevance or one of \(SortKey.allCases.map(\.rawValue))")
            }
            sort = key
        }
        if let text = query.get("order") {
            guard let value = SortOrder(rawValue: text) else { throw Problem.badRequest("order must be asc or desc") }
            order = value
        }
        size = try FeedRequest.pageSize(query.get("size"))
        if let text = query.get("page") {
            guard let value = Int(text), (1...10_000).contains(value) else { throw Problem.badRequest("page must be from 1 to 10000") }
            page = value
        }
        if let text = query.get("after") {
            guard let cursor = PageCursor(encoded: text), cursor.sort == cursorSort, cursor.order == order.rawValue else {
                throw Problem.badRequest("after is not a cursor of this search")
            }
            after = cursor
        }
    }

    /// The search as links write it, from its first page: what differs from the defaults, in a fixed order.
    var queryString: QueryString {
        var query = QueryString()
        query.add("q", q)
        query.add("title", title)
        query.add("author", author)
        query.add("genre", genre)
        query.add("publisher", publisher)
        query.add("language", language)
        query.add("isbn", isbn)
        query.add("available", availableOnly ? "now" : nil)
        query.add("accessibility", accessibility == .all ? nil : accessibility.rawValue)
        query.add("format", format == .all ? nil : format.rawValue)
        query.add("sort", sort?.rawValue)
        query.add("order", order == .asc ? nil : order.rawValue)
        query.add("size", size == 50 ? nil : size)
        return query
    }

    /// This page's query: `queryString` with its page or cursor.
    var pageQueryString: QueryString {
        queryString.adding("page", after == nil && page > 1 ? String(page) : nil).adding("after", after?.encoded)
    }
}
