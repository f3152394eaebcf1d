import Foundation

/// The lanes of the root and grouped feeds in the order staff chose, without the hidden ones: every lane named in the
/// arrangement at its position, the others after them in their default order (featured staff lists first, then the
/// fixed lanes, then the genres), so that a new genre or a newly featured list shows without anyone arranging it.
struct LaneArrangement: Sendable, Equatable {
    struct Placement: Sendable, Equatable, Codable {
        var slug: String
        var hidden: Bool
    }

    /// In order.
    var placements: [Placement]

    /// A featured list's slug in the arrangement.
    static func slug(ofList id: UUID) -> String { "list-" + id.uuidString.lowercased() }

    /// `lanes` (each with its slug), in the arrangement's order, hidden ones left out unless `keepHidden`.
    func arrange<Item>(_ lanes: [(slug: String, item: Item)], keepHidden: Bool = false) -> [(slug: String, item: Item, hidden: Bool)] {
        let position = Dictionary(placements.enumerated().map { ($1.slug, $0) }, uniquingKeysWith: { first, _ in first })
        let hidden = Set(placements.filter(\.hidden).map(\.slug))
        let ordered = lanes.enumerated().sorted { a, b in
            switch (position[a.element.slug], position[b.element.slug]) {
            case (let x?, let y?): x < y
            case (.some, nil): true
            case (nil, .some): false
            case (nil, nil): a.offset < b.offset
            }
        }
        return ordered.map { ($0.element.slug, $0.element.item, hidden.contains($0.element.slug)) }.filter { keepHidden || !$0.hidden }
    }
}
