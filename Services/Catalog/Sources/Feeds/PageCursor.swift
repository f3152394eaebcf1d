import Foundation

/// The opaque `after` cursor of keyset pagination: the sort value and id of the last book of a page, and the
/// sort it belongs to (for a search by relevance, the rank and the sort title of the last book).
struct PageCursor: Codable, Equatable, Sendable {
    var value: String
    var id: UUID
    var sort: String
    var order: String
    var title: String?

    /// Keys in sorted order: the same page must have the same bytes (and ETag) at every catalog replica and after a
    /// restart, and an encoder's own key order follows the process's hash seed.
    var encoded: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(self)) ?? Data()
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    init(value: String, id: UUID, sort: String, order: String, title: String? = nil) {
        self.title = title
        self.value = value
        self.id = id
        self.sort = sort
        self.order = order
    }

    /// Nil for anything that is not a cursor this server made.
    init?(encoded: String) {
        guard encoded.count < 2048 else { return nil }
        var base64 = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let cursor = try? JSONDecoder().decode(PageCursor.self, from: data) else { return nil }
        self = cursor
    }
}
