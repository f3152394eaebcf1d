import Foundation
import TestSupport
import Testing

@testable import ServiceSupport

@Suite struct GzipTests {
    @Test(arguments: [Gzip.Level.standard, .fast])
    func eachLevelIsAGzipMemberOfTheSameBytes(level: Gzip.Level) async throws {
        let page = Data((0..<2_000).map { "<entry><title>Book \($0)</title><id>urn:uuid:\(UUID())</id></entry>\n" }.joined().utf8)
        let zipped = try #require(Gzip.compress(page, level: level))
        #expect(zipped.prefix(2) == Data([0x1f, 0x8b]) && zipped.count < page.count / 2)
        #expect(try await gunzip(zipped) == page)
        #expect(try await gunzip(try #require(Gzip.compress(Data(), level: level))).isEmpty)
    }

    @Test func theTwoLevelsAreTwoEncodingsTheFastOneNoSmaller() throws {
        let page = Data(
            (0..<2_000).map { "<entry><title>Book \($0 % 97)</title><summary>A story of \($0 % 13) seas</summary></entry>\n" }.joined().utf8
        )
        let standard = try #require(Gzip.compress(page, level: .standard))
        let fast = try #require(Gzip.compress(page, level: .fast))
        #expect(standard != fast, "two levels, two encodings (so two ETags)")
        #expect(fast.count >= standard.count)
    }
}
