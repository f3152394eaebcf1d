import Foundation

extension UUID {
    /// A version 7 UUID (RFC 9562): the Unix time in milliseconds in its first 48 bits, then random bits. PostgreSQL
    /// orders uuids by their bytes, so rows keyed by these ids are inserted at the end of an index's range (one hot
    /// page) rather than at a random page of it: at a million books a random id put each new book's entries on ~20
    /// pages that a checkpoint had cleaned, each written to the WAL whole.
    public static func timeOrdered(now: Date = Date()) -> UUID {
        // A version 4 UUID's random bits and variant (0b10), with the time over its first six bytes and version 7.
        var uuid = UUID().uuid
        let milliseconds = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        withUnsafeMutableBytes(of: &uuid) { bytes in
            for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
            bytes[6] = 0x70 | (bytes[6] & 0x0F)
        }
        return UUID(uuid: uuid)
    }
}
