import Foundation
import Shared
import Testing

/// Version 7 UUIDs (RFC 9562): books' ids, so that a new book's index entries go to the end of their ranges.
@Suite struct TimeOrderedUUIDTests {
    @Test func theVersionVariantAndTimeAreWhereTheRFCPutsThem() {
        let now = Date(timeIntervalSince1970: 1_795_730_000.123)
        let id = UUID.timeOrdered(now: now)
        let bytes = withUnsafeBytes(of: id.uuid) { Array($0) }
        #expect(bytes[6] >> 4 == 7)
        #expect(bytes[8] >> 6 == 0b10)
        let milliseconds = bytes[0..<6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(milliseconds == 1_795_730_000_123)
        // RFC 9562's example: 2022-02-22 19:22:22 UTC begins 017f22e2-79b0-7.
        #expect(UUID.timeOrdered(now: Date(timeIntervalSince1970: 1_645_557_742)).lowercased.hasPrefix("017f22e2-79b0-7"))
    }

    @Test func laterIdsSortAfterEarlierOnesAsPostgreSQLComparesThem() {
        let start = Date(timeIntervalSince1970: 1_795_730_000)
        let ids = (0..<200).map { UUID.timeOrdered(now: start.addingTimeInterval(Double($0) * 0.002)) }
        // PostgreSQL orders uuids by their bytes, as their lower-case text sorts.
        #expect(ids.map(\.lowercased) == ids.map(\.lowercased).sorted())
        #expect(Set(ids).count == ids.count)
    }
}
