import Foundation
import Testing

@testable import ServiceSupport

@Suite struct GzipTests {
    /// Inflates with the system's gzip, so the check does not trust the code under test.
    func gunzip(_ data: Data) throws -> Data {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gz-\(UUID().uuidString).gz")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-dc", file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let inflated = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return inflated
    }

    @Test(arguments: [Gzip.Level.standard, .fast])
    func eachLevelIsAGzipMemberOfTheSameBytes(level: Gzip.Level) throws {
        let page = Data((0..<2_000).map { "<entry><title>Book \($0)</title><id>urn:uuid:\(UUID())</id></entry>\n" }.joined().utf8)
        let zipped = try #require(Gzip.compress(page, level: level))
        #expect(zipped.prefix(2) == Data([0x1f, 0x8b]) && zipped.count < page.count / 2)
        #expect(try gunzip(zipped) == page)
        #expect(try gunzip(try #require(Gzip.compress(Data(), level: level))).isEmpty)
    }

    @Test func theFastLevelTakesLessWorkForALittleMoreSize() throws {
        let page = Data(
            (0..<2_000).map { "<entry><title>Book \($0 % 97)</title><summary>A story of \($0 % 13) seas</summary></entry>\n" }.joined().utf8
        )
        let standard = try #require(Gzip.compress(page, level: .standard))
        let fast = try #require(Gzip.compress(page, level: .fast))
        #expect(standard != fast, "two levels, two encodings (so two ETags)")
        #expect(fast.count >= standard.count)
    }
}
