/// A URL's query written from typed values (`LaneQuery`, `SearchQuery`...): items in the order added, each value
/// percent-encoded, so no link glues a query by hand.
public struct QueryString: Sendable, CustomStringConvertible {
    private var items: [(name: String, value: String)] = []

    public init() {}

    /// Adds `name=value`; nothing when the value is nil.
    public mutating func add(_ name: String, _ value: String?) {
        guard let value else { return }
        items.append((name, value))
    }

    public mutating func add(_ name: String, _ value: Int?) { add(name, value.map(String.init)) }

    /// The same query with `name=value` added.
    public func adding(_ name: String, _ value: String?) -> QueryString {
        var copy = self
        copy.add(name, value)
        return copy
    }

    /// `a=1&b=2`, without the question mark.
    public var description: String {
        items.map { $0.name + "=" + PercentEncoding.encode($0.value, keeping: .unreserved) }.joined(separator: "&")
    }

    /// `?a=1&b=2` to follow a path, or nothing for an empty query.
    public var suffix: String { items.isEmpty ? "" : "?" + description }

}
