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
    var path: String { customPath ?? "/opds/lanes/\(slug)" }
    var customPath: String? = nil

    /// The books of one series, in series order (`belongsTo.series` links here).
    static func series(_ name: String) -> Lane {
        Lane(
            slug: "series", title: name, condition: "series = $VALUE", defaultSort: .seriesPosition, defaultOrder: .asc, value: name,
            customPath: "/opds/series/" + Self.pathComponent(name))
    }

    /// The books an author wrote (as `dc:creator` with the author role), by title.
    static func author(_ name: String) -> Lane {
        Lane(
            slug: "author", title: name, condition: "$VALUE = ANY(authors)", defaultSort: .title, defaultOrder: .asc, value: name,
            customPath: "/opds/authors/" + Self.pathComponent(name))
    }

    /// `name` as one percent-encoded path segment.
    static func pathComponent(_ name: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%;")
        return name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
    }

    static let fixed: [Lane] = [
        Lane(slug: "new", title: "New arrivals", condition: "true", defaultSort: .added, defaultOrder: .desc),
        Lane(slug: "featured", title: "Featured", condition: "featured", defaultSort: .added, defaultOrder: .desc),
        Lane(slug: "staff-picks", title: "Recommended by librarians", condition: "staff_pick", defaultSort: .added, defaultOrder: .desc),
        Lane(slug: "popular", title: "Popular", condition: "checkouts > 0", defaultSort: .popularity, defaultOrder: .desc),
        Lane(slug: "available", title: "Available now", condition: "(open_access OR copies_available > 0)", defaultSort: .title, defaultOrder: .asc),
    ]

    static func genre(_ slug: String) -> Lane? {
        guard let name = Genres.name(of: slug) else { return nil }
        return Lane(slug: "genre-\(slug)", title: name, condition: "genres @> ARRAY['\(slug)']", defaultSort: .title, defaultOrder: .asc)
    }

    static func named(_ slug: String) -> Lane? {
        if let lane = fixed.first(where: { $0.slug == slug }) { return lane }
        if slug.hasPrefix("genre-") { return genre(String(slug.dropFirst(6))) }
        return nil
    }
}

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
        case .popularity: ("checkouts", "int")
        case .length: ("word_count", "int")
        case .seriesPosition: ("coalesce(series_position, 1e9)", "float8")
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

enum SortOrder: String, CaseIterable, Sendable {
    case asc, desc
}

/// The accessibility facet of lanes and search: every book, books that can be read with text alone (a screen reader
/// or braille display: `accessModeSufficient` textual), or books that declare no hazards (flashing, motion, sound).
enum AccessibilityFacet: String, CaseIterable, Sendable {
    case all
    case screenReader = "screen-reader"
    case noHazards = "no-hazards"

    /// The SQL condition on books (nil: no condition). Set at ingest from the book's accessibility metadata.
    var condition: String? {
        switch self {
        case .all: nil
        case .screenReader: "screen_reader_friendly"
        case .noHazards: "declares_no_hazards"
        }
    }

    var label: String {
        switch self {
        case .all: "All"
        case .screenReader: "Screen-reader friendly"
        case .noHazards: "No hazards"
        }
    }

    static let group = "Accessibility"

    init(parameter: String?) throws {
        guard let facet = AccessibilityFacet(rawValue: parameter ?? "all") else {
            throw Problem.badRequest("accessibility must be one of \(AccessibilityFacet.allCases.map(\.rawValue))")
        }
        self = facet
    }
}
