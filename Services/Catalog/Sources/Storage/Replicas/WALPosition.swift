/// A PostgreSQL write-ahead-log position (`pg_lsn`), as `XXXXXXXX/XXXXXXXX` in hex, compared as a number.
struct WALPosition: Comparable, Sendable, CustomStringConvertible {
    let value: UInt64

    static let zero = WALPosition(value: 0)

    init(value: UInt64) { self.value = value }

    /// nil for text that is not a position.
    init?(_ text: String) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let high = UInt64(parts[0], radix: 16), let low = UInt64(parts[1], radix: 16), high <= UInt32.max,
            low <= UInt32.max
        else { return nil }
        value = high << 32 | low
    }

    static func < (a: WALPosition, b: WALPosition) -> Bool { a.value < b.value }

    var description: String { String(value >> 32, radix: 16, uppercase: true) + "/" + String(value & 0xFFFF_FFFF, radix: 16, uppercase: true) }
}
