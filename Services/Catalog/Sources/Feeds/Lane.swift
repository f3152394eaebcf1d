import Foundation
import ServiceSupport
import Shared

/// A lane of the catalog: a named, filtered and sorted list of books.
struct Lane: Sendable, Equatable {
    var slug: String
    var title: String
    /// SQL condition on `books` (no user input in it).
    var condition: String
    var defaultSort: SortKey
    var defaultOrder: SortOrder
    /// A value from the request that the condition compares with (a series, an author), bound as `$VALUE`, never
    /// written into the SQL.
    var value: String? = nil
    /// Where the lane is served.
    var path: String { customPath ?? PublicRoute.lane(slug).path }
    var customPath: String? = nil
    /// The genre of a genre lane, whose pages are read from `genre_lane_books` (catalog migration 28).
    var genre: String? = nil

    /// The orders the lane offers as facets and accepts: series order only in a series lane (no other lane has an
    /// index in that order: at a million books, `new` in series order sorted every book, 1.5 s).
    var sorts: [SortKey] { SortKey.allCases.filter { $0 != .seriesPosition || defaultSort == .seriesPosition } }

    /// The books of one series, in series order (`belongsTo.series` links here).
    static func series(_ name: String) -> Lane {
        Lane(
            slug: "series",
            title: name,
            condition: "series = $VALUE",
            defaultSort: .seriesPosition,
            defaultOrder: .asc,
            value: name,
            customPath: seriesRoute(name).path
        )
    }

    /// Where the lane of the series `name` is served (an entry's link to it builds no lane).
    static func seriesRoute(_ name: String) -> PublicRoute { .series(PercentEncoding.encode(name, keeping: .pathSegment)) }

    /// The books an author wrote (as `dc:creator` with the author role), by title.
    static func author(_ name: String) -> Lane {
        Lane(
            slug: "author",
            title: name,
            condition: "authors @> ARRAY[$VALUE]",
            defaultSort: .title,
            defaultOrder: .asc,
            value: name,
            customPath: authorRoute(name).path
        )
    }

    /// Where the lane of the author `name` is served (an entry's link to it builds no lane).
    static func authorRoute(_ name: String) -> PublicRoute { .author(PercentEncoding.encode(name, keeping: .pathSegment)) }

    static let fixed: [Lane] = [
        Lane(slug: "new", title: "New arrivals", condition: "true", defaultSort: .added, defaultOrder: .desc),
        Lane(slug: "featured", title: "Featured", condition: "featured", defaultSort: .added, defaultOrder: .desc),
        Lane(slug: "staff-picks", title: "Recommended by librarians", condition: "staff_pick", defaultSort: .added, defaultOrder: .desc),
        Lane(slug: "popular", title: "Popular", condition: "popularity > 0", defaultSort: .popularity, defaultOrder: .desc),
        Lane(slug: "available", title: "Available now", condition: "(open_access OR copies_available > 0)", defaultSort: .title, defaultOrder: .asc),
    ]

    static func genre(_ slug: String) -> Lane? {
        guard let name = Genres.name(of: slug) else { return nil }
        return Lane(
            slug: "genre-\(slug)",
            title: name,
            condition: "genres @> ARRAY['\(slug)']",
            defaultSort: .title,
            defaultOrder: .asc,
            genre: slug
        )
    }

    static func named(_ slug: String) -> Lane? {
        if let lane = fixed.first(where: { $0.slug == slug }) { return lane }
        if slug.hasPrefix("genre-") { return genre(String(slug.dropFirst(6))) }
        return nil
    }
}
