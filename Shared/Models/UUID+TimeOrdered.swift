import Foundation

extension UUID {
    /// A version 7 UUID (RFC 9562): the Unix time in milliseconds in its first 48 bits, then random bits. PostgreSQL
    /// orders uuids by their bytes, so rows keyed by these ids are inserted at the end of an index's range (one hot
    /// page) rather than at a random page of it: at a million books a random id put each new book's entries on ~20
    /// pages that a checkpoint had cleaned, each written to the WAL whole.
    public static func timeOrdered(now: Date = Date()) -> UUID {
        var generator = SystemRandomNumberGenerator()
        return timeOrdered(now: now, using: &generator)
    }

    public static func timeOrdered(now: Date, using generator: inout some RandomNumberGenerator) -> UUID {
        let milliseconds = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        for index in 6..<8 { bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * index)) }
        for index in 8..<16 { bytes[index] = UInt8(truncatingIfNeeded: low >> (8 * (index - 8))) }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)  // version 7
        bytes[8] = 0x80 | (bytes[8] & 0x3F)  // variant 0b10
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            )
        )
    }
}
