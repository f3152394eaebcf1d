/// A JSON value read from a jsonb column's text: the two small documents every feed entry reads (its contributors and
/// accessibility). Foundation's `JSONDecoder`, made anew for each, was a fourteenth of catalog's time on a cold lane
/// page (two decodes an entry, fifty entries a page).
enum StoredJSON: Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    indirect case array([StoredJSON])
    indirect case object(Members)

    /// An object's members in their order. The stored objects are small (a contributor's three, accessibility's
    /// seven), and found by a look along them: a dictionary a contributor hashed every key and allocated a table.
    struct Members: Equatable, ExpressibleByDictionaryLiteral {
        var pairs: [(key: String, value: StoredJSON)] = []

        init(dictionaryLiteral elements: (String, StoredJSON)...) { pairs = elements.map { (key: $0.0, value: $0.1) } }

        /// The value of `key` (the last one when a key repeats, as a dictionary kept it).
        subscript(key: String) -> StoredJSON? { pairs.last { $0.key == key }?.value }

        static func == (left: Members, right: Members) -> Bool {
            left.pairs.count == right.pairs.count && zip(left.pairs, right.pairs).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        }
    }

    struct Malformed: Error, CustomStringConvertible {
        var offset: Int
        var description: String { "malformed JSON at byte \(offset)" }
    }

    init(parsing text: String) throws {
        var text = text
        self = try text.withUTF8 { bytes in
            var reader = Reader(bytes: bytes)
            let value = try reader.value()
            reader.skipSpace()
            guard reader.index == bytes.count else { throw Malformed(offset: reader.index) }
            return value
        }
    }

    var string: String? { if case .string(let text) = self { text } else { nil } }
    var array: [StoredJSON]? { if case .array(let items) = self { items } else { nil } }
    subscript(key: String) -> StoredJSON? { if case .object(let members) = self { members[key] } else { nil } }

    /// An array of strings; nil for anything else.
    var strings: [String]? {
        guard let items = array else { return nil }
        let texts = items.compactMap(\.string)
        return texts.count == items.count ? texts : nil
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x09 || bytes[index] == 0x0D { index += 1 }
        }

        mutating func value() throws -> StoredJSON {
            skipSpace()
            guard index < bytes.count else { throw Malformed(offset: index) }
            switch bytes[index] {
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "["):
                index += 1
                var items: [StoredJSON] = []
                if try closes(UInt8(ascii: "]")) { return .array(items) }
                repeat { items.append(try value()) } while try separated(closing: UInt8(ascii: "]"))
                return .array(items)
            case UInt8(ascii: "{"):
                index += 1
                var members = Members()
                if try closes(UInt8(ascii: "}")) { return .object(members) }
                repeat {
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Malformed(offset: index) }
                    let key = try string()
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw Malformed(offset: index) }
                    index += 1
                    members.pairs.append((key, try value()))
                } while try separated(closing: UInt8(ascii: "}"))
                return .object(members)
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default: return try number()
            }
        }

        /// Whether the container closes at once (`[]`, `{}`).
        private mutating func closes(_ closing: UInt8) throws -> Bool {
            skipSpace()
            guard index < bytes.count, bytes[index] == closing else { return false }
            index += 1
            return true
        }

        /// After an item: true at a comma (another follows), false at the closing bracket.
        private mutating func separated(closing: UInt8) throws -> Bool {
            skipSpace()
            guard index < bytes.count else { throw Malformed(offset: index) }
            index += 1
            switch bytes[index - 1] {
            case UInt8(ascii: ","): return true
            case closing: return false
            default: throw Malformed(offset: index - 1)
            }
        }

        private mutating func literal(_ word: String, _ value: StoredJSON) throws -> StoredJSON {
            let count = word.utf8.count
            guard index + count <= bytes.count, word.utf8.elementsEqual(bytes[index..<index + count]) else { throw Malformed(offset: index) }
            index += count
            return value
        }

        private mutating func number() throws -> StoredJSON {
            let start = index
            while index < bytes.count, "+-0123456789.eE".utf8.contains(bytes[index]) { index += 1 }
            guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else { throw Malformed(offset: start) }
            return .number(value)
        }

        /// A string from its opening quote, escapes resolved.
        private mutating func string() throws -> String {
            index += 1
            // Most strings have no escape: made from their bytes at once (keys and short names need no allocation).
            var end = index
            while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 { end += 1 }
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                defer { index = end + 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
            }
            var text: [UInt8] = Array(bytes[index..<end])
            index = end
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return String(decoding: text, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw Malformed(offset: index) }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
                    case UInt8(ascii: "b"): text.append(0x08)
                    case UInt8(ascii: "f"): text.append(0x0C)
                    case UInt8(ascii: "n"): text.append(0x0A)
                    case UInt8(ascii: "r"): text.append(0x0D)
                    case UInt8(ascii: "t"): text.append(0x09)
                    case UInt8(ascii: "u"): text.append(contentsOf: String(try scalar()).utf8)
                    default: throw Malformed(offset: index - 1)
                    }
                case 0..<0x20: throw Malformed(offset: index - 1)
                default: text.append(byte)
                }
            }
            throw Malformed(offset: index)
        }

        /// The character of a `\u` escape (after the `u`), a surrogate pair's two escapes together.
        private mutating func scalar() throws -> Character {
            let high = try hex4()
            if (0xD800..<0xDC00).contains(high), index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                bytes[index + 1] == UInt8(ascii: "u")
            {
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low), let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                else { throw Malformed(offset: index - 4) }
                return Character(scalar)
            }
            guard let scalar = Unicode.Scalar(high) else { throw Malformed(offset: index - 4) }  // a lone surrogate
            return Character(scalar)
        }

        private mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.count else { throw Malformed(offset: index) }
            var value: UInt32 = 0
            for byte in bytes[index..<index + 4] {
                guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { throw Malformed(offset: index) }
                value = value << 4 | UInt32(digit)
            }
            index += 4
            return value
        }
    }
}

extension Contributor {
    /// A contributor as stored (`{"name", "role", "sortAs"?}`).
    init(stored json: StoredJSON) throws {
        guard let name = json["name"]?.string, let role = json["role"]?.string else { throw StoredJSON.Malformed(offset: 0) }
        self.init(name: name, sortAs: json["sortAs"]?.string, role: role)
    }

    /// The contributors column's text.
    static func stored(_ text: String) throws -> [Contributor] {
        guard let items = try StoredJSON(parsing: text).array else { throw StoredJSON.Malformed(offset: 0) }
        return try items.map(Contributor.init(stored:))
    }
}

extension Accessibility {
    /// The accessibility column's text; nil when it is not an accessibility object (as a failed decode was).
    static func stored(_ text: String) -> Accessibility? {
        guard let json = try? StoredJSON(parsing: text), case .object = json else { return nil }
        var accessibility = Accessibility()
        accessibility.conformsTo = json["conformsTo"]?.strings ?? []
        if let certification = json["certification"], case .object = certification {
            accessibility.certification = Certification(
                certifiedBy: certification["certifiedBy"]?.string,
                credential: certification["credential"]?.string,
                report: certification["report"]?.string
            )
        }
        accessibility.summary = json["summary"]?.string
        accessibility.accessMode = json["accessMode"]?.strings ?? []
        accessibility.accessModeSufficient = json["accessModeSufficient"]?.array?.compactMap(\.strings) ?? []
        accessibility.feature = json["feature"]?.strings ?? []
        accessibility.hazard = json["hazard"]?.strings ?? []
        return accessibility
    }
}
