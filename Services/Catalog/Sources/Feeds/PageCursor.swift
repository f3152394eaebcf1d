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
    /// replica and after a restart (an encoder's own key order followed the process's hash seed). Written by hand, as
    /// every page with a next link writes one (`JSONEncoder` was a thirtieth of catalog's time on a cold lane page).
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
        var url: [UInt8] = []
        url.reserveCapacity(json.bytes.count * 4 / 3 + 4)
        for byte in Data(json.bytes).base64EncodedData() {
            switch byte {
            case UInt8(ascii: "+"): url.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): url.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: url.append(byte)
            }
        }
        return String(decoding: url, as: UTF8.self)
    }

    init(value: String, id: UUID, sort: String, order: String, title: String? = nil) {
        self.title = title
        self.value = value
        self.id = id
        self.sort = sort
        self.order = order
    }

    /// Nil for anything that is not a cursor this server made. Read by hand (base64url to bytes, then `StoredJSON`), as
    /// every page after the first reads one: Foundation's string replacements and `JSONDecoder` were a fiftieth of
    /// catalog's time on a lane page at a million books.
    init?(encoded: String) {
        guard encoded.utf8.count < 2048 else { return nil }
        var base64 = encoded.utf8.map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "-"): UInt8(ascii: "+")
            case UInt8(ascii: "_"): UInt8(ascii: "/")
            default: byte
            }
        }
        while base64.count % 4 != 0 { base64.append(UInt8(ascii: "=")) }
        guard let data = Data(base64Encoded: Data(base64)), let text = String(bytes: data, encoding: .utf8),
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
