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

    /// The SQL expression and its type, for keyset pagination.
    var expression: (sql: String, type: String) {
        switch self {
        case .title: ("sort_title", "text")
        case .author: ("lower(sort_author)", "text")
        case .added: ("added_at", "timestamptz")
        case .rating: ("coalesce(rating_average, 0)", "float8")
        case .popularity: ("checkouts", "int")
        case .length: ("word_count", "int")
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
