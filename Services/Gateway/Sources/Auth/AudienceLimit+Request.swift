import HTTPTypes
import Hummingbird
import Shared

extension AudienceLimit {
    /// The request as a limited card makes it: its query's `audience=` (if any) replaced by the card's own, so that
    /// catalog shows only the books the card fits and every cache keys the page by it. The body is carried as it is.
    static func limiting(_ request: Request, to limit: AudienceLimit) -> Request {
        let kept = (request.uri.query ?? "").split(separator: "&").filter { item in
            !item.isEmpty && !item.hasPrefix(Self.parameter + "=") && item != Self.parameter[...]
        }
        var head = request.head
        head.path = request.uri.path + "?" + (kept.map(String.init) + [Self.parameter + "=" + limit.rawValue]).joined(separator: "&")
        return Request(head: head, body: request.body)
    }
}
