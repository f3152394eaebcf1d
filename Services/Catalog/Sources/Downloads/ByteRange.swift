import HTTPTypes
import Hummingbird
import ServiceSupport
import Shared

/// One `Range` of a response body (RFC 9110 §14): `bytes=a-b`, `bytes=a-` or `bytes=-n`. Several ranges in one
/// request are answered with the whole body, as the RFC allows.
enum ByteRange {
    enum Selection {
        case whole
        case part(Range<Int>)
        case unsatisfiable(Response)
    }

    /// What to send of a body of `size` bytes for the request's `Range` header, with `Accept-Ranges` and, for a
    /// part, `Content-Range` added to `headers`; a 416 problem for a range outside the body.
    static func select(_ header: String?, size: Int, headers: inout HTTPFields) -> Selection {
        headers[.acceptRanges] = "bytes"
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return .whole }
        guard let range = parse(header, size: size) else {
            headers[.contentRange] = "bytes */\(size)"
            return .unsatisfiable(Problem(status: 416, slug: "range-not-satisfiable", title: "Range not satisfiable").response(headers: headers))
        }
        headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)"
        return .part(range)
    }

    /// The bytes `header` names within `size`, or nil when it names none.
    static func parse(_ header: String, size: Int) -> Range<Int>? {
        let parts = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix > 0 else { return nil }
            return max(0, size - suffix)..<size
        }
        guard let start = Int(parts[0]), start < size else { return nil }
        let end = parts[1].isEmpty ? size - 1 : min(Int(parts[1]) ?? -1, size - 1)
        guard end >= start else { return nil }
        return start..<(end + 1)
    }
}
