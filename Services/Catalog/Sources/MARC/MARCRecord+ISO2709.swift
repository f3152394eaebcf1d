import Foundation

extension MARCRecord {
    static let fieldTerminator: UInt8 = 0x1E
    static let recordTerminator: UInt8 = 0x1D
    static let subfieldDelimiter: UInt8 = 0x1F
    /// ISO 2709's limits: a field's length has four digits, a record's five.
    static let longestField = 9_999
    static let longestRecord = 99_999

    /// The record in ISO 2709 (a `.mrc` file is these, one after the other): the leader, the directory (tag, length and
    /// start of each field), the fields. A field longer than ISO 2709 allows is cut at a character's boundary, and the
    /// last data fields are dropped while the record would be too long (a description is what can be that long).
    var iso2709: [UInt8] {
        var fields: [(tag: String, bytes: [UInt8])] = controlFields.map { ($0.tag, Array($0.value.utf8) + [Self.fieldTerminator]) }
        for field in dataFields {
            var bytes = [field.indicators.0.asciiValue ?? 0x20, field.indicators.1.asciiValue ?? 0x20]
            for subfield in field.subfields {
                bytes.append(Self.subfieldDelimiter)
                bytes.append(subfield.code.asciiValue ?? UInt8(ascii: "a"))
                bytes.append(contentsOf: subfield.value.utf8)
            }
            if bytes.count + 1 > Self.longestField { bytes = Self.cut(bytes, to: Self.longestField - 1) }
            fields.append((field.tag, bytes + [Self.fieldTerminator]))
        }
        while fields.count > 1, 24 + 12 * fields.count + 1 + fields.reduce(0, { $0 + $1.bytes.count }) + 1 > Self.longestRecord {
            fields.removeLast()
        }
        var directory: [UInt8] = []
        var data: [UInt8] = []
        for (tag, bytes) in fields {
            directory.append(contentsOf: Array(tag.utf8) + Array(String(format: "%04d%05d", bytes.count, data.count).utf8))
            data.append(contentsOf: bytes)
        }
        directory.append(Self.fieldTerminator)
        let base = 24 + directory.count
        let length = base + data.count + 1
        return Array(leader(length: length, baseAddress: base).utf8) + directory + data + [Self.recordTerminator]
    }

    /// `bytes` cut to at most `limit`, never inside a UTF-8 character.
    static func cut(_ bytes: [UInt8], to limit: Int) -> [UInt8] {
        var end = min(limit, bytes.count)
        while end > 0, end < bytes.count, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return Array(bytes[..<end])
    }
}
