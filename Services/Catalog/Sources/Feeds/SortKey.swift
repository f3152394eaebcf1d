import Foundation
import ServiceSupport
import Shared

/// The sort facets of lanes and search.
enum SortKey: String, CaseIterable, Sendable {
    case title, author, added, rating, popularity, length
    case seriesPosition = "series"

    /// The SQL expression and its type, for keyset pagination.
    var expression: (sql: String, type: String) {
        switch self {
        case .title: ("sort_title", "text")
        case .author: ("lower(sort_author)", "text")
        case .added: ("added_at", "timestamptz")
        case .rating: ("coalesce(rating_average, 0)", "float8")
        case .popularity: ("popularity", "int")
        case .length: ("word_count", "int")
        case .seriesPosition: ("coalesce(series_position, 1e9)", "float8")
        }
    }

    /// The column of `genre_lane_books` that holds `expression` (catalog migration 28); nil for series order, which
    /// only a series lane offers.
    var genreLaneColumn: String? {
        switch self {
        case .title: "sort_title"
        case .author: "author_key"
        case .added: "added_at"
        case .rating: "rating"
        case .popularity: "popularity"
        case .length: "word_count"
        case .seriesPosition: nil
        }
    }

    var label: String {
        switch self {
        case .title: "Title"
        case .author: "Author"
        case .added: "Date added"
        case .rating: "Rating"
        case .popularity: "Popularity"
        case .length: "Length"
        case .seriesPosition: "Series order"
        }
    }
}
