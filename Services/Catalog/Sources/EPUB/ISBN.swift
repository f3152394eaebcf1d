/// ISBN-10 and ISBN-13 validation by checksum and normalisation to ISBN-13.
enum ISBN {
    /// The ISBN-13 of `text` (hyphens, spaces and a `urn:isbn:` or `isbn:` prefix allowed), or nil when it is not a
    /// valid ISBN.
    static func normalized(_ text: String) -> String? {
        var body = text.lowercased()
        for prefix in ["urn:isbn:", "isbn:", "isbn"] where body.hasPrefix(prefix) { body = String(body.dropFirst(prefix.count)) }
        let chars = body.filter { $0 != "-" && $0 != " " }
        if chars.count == 13, chars.allSatisfy(\.isNumber) {
            let digits = chars.compactMap(\.wholeNumberValue)
            let sum = digits.enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 1 : 3) }
            return sum % 10 == 0 && (chars.hasPrefix("978") || chars.hasPrefix("979")) ? chars : nil
        }
        if chars.count == 10, chars.prefix(9).allSatisfy(\.isNumber), let last = chars.last, last.isNumber || last == "x" {
            let digits = chars.prefix(9).compactMap(\.wholeNumberValue) + [last == "x" ? 10 : last.wholeNumberValue!]
            let sum = digits.enumerated().reduce(0) { $0 + $1.element * (10 - $1.offset) }
            guard sum % 11 == 0 else { return nil }
            let core = "978" + chars.prefix(9)
            let check = (10 - core.compactMap(\.wholeNumberValue).enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 1 : 3) } % 10) % 10
            return core + String(check)
        }
        return nil
    }
}
