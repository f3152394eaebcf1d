import Foundation
import Testing

@testable import CatalogService

@Suite struct KOReaderDigestTests {
    /// The expected digests were computed by a separate implementation of koreader's `util.partialMD5` (Python's
    /// hashlib over the same samples): a file of exactly 1 KiB has one sample, 5,000 bytes three, 300,000 bytes six.
    @Test(arguments: [
        (1_024, "9ee0a0e0c0bc0f1ff29d663d1fdf0743"),
        (5_000, "e77dcca7f22a949ae8492c260ca19f32"),
        (300_000, "c43e7af7c64be64ff8765e78ee771294"),
    ])
    func theDigestIsKOReadersPartialMD5(size: Int, expected: String) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("koreader-\(UUID()).epub")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data((0..<size).map { UInt8($0 % 251) }).write(to: url)
        #expect(try KOReaderDigest.of(file: url) == expected)
    }
}
