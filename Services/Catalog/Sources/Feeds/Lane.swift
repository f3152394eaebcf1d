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

    /// The books of one series, in series order (`belongsTo.series` links here).
    static func series(_ name: String) -> Lane {
        Lane(
            slug: "series",
            title: name,
            condition: "series = $VALUE",
            defaultSort: .seriesPosition,
            defaultOrder: .asc,
            value: name,
            customPath: PublicRoute.series(Self.pathComponent(name)).path
        )
    }

    /// The books an author wrote (as `dc:creator` with the author role), by title.
    static func author(_ name: String) -> Lane {
        Lane(
            slug: "author",
            title: name,
            condition: "$VALUE = ANY(authors)",
            defaultSort: .title,
            defaultOrder: .asc,
            value: name,
            customPath: PublicRoute.author(Self.pathComponent(name)).path
        )
    }

    /// `name` as one percent-encoded path segment: every UTF-8 byte but a path's characters (`urlPathAllowed`
    /// without "/?#%;") as %XX, as `addingPercentEncoding` gave it. Written byte by byte: Foundation's went through
    /// NSString and a character set built at each call, for every author and series link (a tenth of catalog's time
    /// on a cold lane page).
    static func pathComponent(_ name: String) -> String {
        let utf8 = name.utf8
        if utf8.allSatisfy({ $0 < 128 && segmentCharacters[Int($0)] }) { return name }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if byte < 128 && segmentCharacters[Int(byte)] {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                for half in [byte >> 4, byte & 0x0F] { bytes.append(half < 10 ? UInt8(ascii: "0") + half : UInt8(ascii: "A") + half - 10) }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The ASCII characters a path segment keeps as they are: letters, digits and "!$&'()*+,-.:=@_~".
    private static let segmentCharacters: [Bool] = (0..<128).map { code in
        let character = Character(Unicode.Scalar(UInt8(code)))
        return character.isASCII && (character.isLetter || character.isNumber) || "!$&'()*+,-.:=@_~".contains(character)
    }

    static let fixed: [Lane] = [
        Lane(slug: "new", title: "New arrivals", condition: "true", defaultSort: .added, defaultOrder: .desc),
        Lane(slug: "featured", title: "Featured", condition: "featured", defaultSort: .added, defaultOrder: .desc),
        Lane(slug: "staff-picks", title: "Recommended by librarians", condition: "staff_pick", defaultSort: .added, defaultOrder: .desc),
        Lane(slug: "popular", title: "Popular", condition: "popularity > 0", defaultSort: .popularity, defaultOrder: .desc),
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
