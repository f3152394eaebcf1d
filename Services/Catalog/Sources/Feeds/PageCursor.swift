import Foundation
import Shared

/// The opaque `after` cursor of keyset pagination: the sort value and id of the last book of a page, and the
/// sort it belongs to (for a search by relevance, the rank and the sort title of the last book).
struct PageCursor: Equatable, Sendable {
    var value: String
    var id: UUID
    var sort: String
    var order: String
    var title: String?

    /// Base64url JSON with its keys in sorted order: the same page must have the same bytes (and ETag) at every catalog
    /// replica and after a restart (an encoder's own key order followed the process's hash seed). Written with
    /// `JSONWriter`, as every page with a next link writes one (`JSONEncoder` was a thirtieth of catalog's time on a cold
    /// lane page).
    var encoded: String {
        var json = JSONWriter(capacity: 160)
        json.beginObject()
        json.key("id")
        json.uuid(id)
        json.key("order")
        json.string(order)
        json.key("sort")
        json.string(sort)
        if let title {
            json.key("title")
            json.string(title)
        }
        json.key("value")
        json.string(value)
        json.endObject()
        return Data(json.bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
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
        guard encoded.utf8.count < 2048 else { return nil }
        var base64 = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let text = String(bytes: data, encoding: .utf8),
            let json = try? StoredJSON(parsing: text), let value = json["value"]?.string,
            let id = json["id"]?.string.flatMap({ UUID(uuidString: $0) }),
            let sort = json["sort"]?.string, let order = json["order"]?.string
        else { return nil }
        let title: String?
        switch json["title"] {
        case nil, .null?: title = nil
        case .string(let text)?: title = text
        default: return nil
        }
        self.init(value: value, id: id, sort: sort, order: order, title: title)
    }
}
