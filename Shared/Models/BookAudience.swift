/// Who a book is for: from its EPUB's metadata (`schema:typicalAgeRange`, or subjects such as BISAC's juvenile and
/// young adult headings) or staff's edit; nil when neither says.
public enum BookAudience: String, CaseIterable, Codable, Sendable {
    case children
    case youngAdult = "young-adult"
    case adult
    case allAges = "all-ages"

    /// The audience a book's metadata states: its typical age range first (`8-12` children's, `10-14` or `13-17` young
    /// adults', `18-` adults', `8-` all ages), then its subjects (BISAC's `JUV…`/"Juvenile …" children's, `YAF…`/"Young
    /// Adult …" young adults', "Adult …" adults'); nil when neither says.
    public static func stated(ageRange: String?, subjects: [String]) -> BookAudience? {
        if let range = ageRange, let youngest = Int(range.prefix { $0.isNumber }) {
            let oldest = range.split(separator: "-").dropFirst().first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            if youngest >= 18 { return .adult }
            if let oldest, oldest <= 12 { return .children }
            if youngest >= 12 || (oldest ?? 99) <= 17 { return .youngAdult }
            return .allAges
        }
        let lowered = subjects.map { $0.lowercased() }
        if lowered.contains(where: { $0.hasPrefix("juv") || $0.hasPrefix("juvenile") || $0.contains("children's") }) { return .children }
        if lowered.contains(where: { $0.hasPrefix("yaf") || $0.hasPrefix("yan") || $0.hasPrefix("young adult") }) { return .youngAdult }
        if lowered.contains(where: { $0.hasPrefix("adult ") || $0 == "adult" }) { return .adult }
        return nil
    }
}

/// What a teen's or a child's card may see and borrow (patron types, `PATRON_TYPE_*`): the gateway adds it to their
/// catalog requests as `audience=`, catalog's lanes, searches and book pages show only the books it fits, and patron
/// lends only those. An adult's card, and an anonymous visitor, have no limit.
public enum AudienceLimit: String, CaseIterable, Sendable {
    case teen
    case child

    /// The patron type's limit (`adult`, `teen`, `child`; none or unknown: no limit).
    public init?(patronType: String?) {
        guard let patronType, let limit = AudienceLimit(rawValue: patronType) else { return nil }
        self = limit
    }

    /// The audiences this card sees; a book that states none is for adults' cards only.
    public var audiences: [BookAudience] {
        switch self {
        case .teen: [.children, .youngAdult, .allAges]
        case .child: [.children, .allAges]
        }
    }

    public func fits(_ audience: BookAudience?) -> Bool { audience.map(audiences.contains) ?? false }

    /// The SQL condition on `books.audience` (the enums' own values, never a request's text).
    public var condition: String { "audience IN (\(audiences.map { "'\($0.rawValue)'" }.joined(separator: ", ")))" }

    /// The query parameter the gateway sets on a limited card's catalog requests.
    public static let parameter = "audience"
}
