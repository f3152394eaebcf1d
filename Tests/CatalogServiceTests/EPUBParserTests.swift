import Foundation
import TestSupport
import Testing
import ZIPFoundation

@testable import CatalogService

/// Parsing every file of the shared corpus, and hostile archives made here.
@Suite struct EPUBParserTests {
    @Test(.needsCorpus) func theCorpusIsThere() {
        #expect(CorpusBook.all.count >= 60, "../shared/epubs/INDEX.tsv must be readable (SHARED_DIR)")
    }

    @Test(.needsCorpus, arguments: CorpusBook.all.filter { $0.shouldIngest.hasPrefix("yes") })
    func everyValidBookParsesWithItsTitleAndTableOfContents(book: CorpusBook) throws {
        var parser = try EPUBParser(url: book.file)
        let parsed = try parser.parse()
        #expect(parsed.title == book.title.collapsingWhitespace)
        if let expected = book.expectedTOC {
            #expect(parsed.toc.reduce(0) { $0 + $1.count } == expected.count)
            #expect(parsed.toc.map(\.depth).max() == expected.depth)
        }
    }

    @Test(.needsCorpus, arguments: CorpusBook.all.filter { $0.shouldIngest == "no" })
    func everyBrokenBookIsRefusedWithAReason(book: CorpusBook) throws {
        #expect(throws: EPUBError.self) {
            var parser = try EPUBParser(url: book.file)
            _ = try parser.parse()
        }
    }

    @Test(.needsCorpus, arguments: CorpusBook.all.filter { $0.shouldIngest.hasPrefix("maybe") })
    func doubtfulBooksAreEitherReadOrRefusedCleanly(book: CorpusBook) {
        do {
            var parser = try EPUBParser(url: book.file)
            _ = try parser.parse()
        } catch {
            #expect(error is EPUBError)
        }
    }

    /// Generated books (EPUB 3 with a nav document, a quarter EPUB 2 with an NCX, a third with two nested parts) parse
    /// with their title, ISBN, cover and whole table of contents, with or without the corpus.
    @Test func generatedBooksParseWithTheirNavOrNCXAndCover() async throws {
        var depths: Set<Int> = []
        for file in await TestTools.generatedBooks(count: 12) {
            var parser = try EPUBParser(url: file)
            let book = try parser.parse()
            #expect(!book.title.isEmpty && book.isbn != nil && book.cover != nil, "\(file.lastPathComponent)")
            let depth = book.toc.map(\.depth).max() ?? 0
            depths.insert(depth)
            #expect(book.toc.reduce(0) { $0 + $1.count } == (depth == 2 ? 12 : 10), "\(file.lastPathComponent): \(book.toc.count) entries")
        }
        #expect(depths == [1, 2], "flat and nested tables of contents among the twelve")
    }

    @Test func isbnsAreValidatedAndNormalised() {
        #expect(ISBN.normalized("0-306-40615-2") == "9780306406157")
        #expect(ISBN.normalized("urn:isbn:978-0-306-40615-7") == "9780306406157")
        #expect(ISBN.normalized("0-306-40615-3") == nil)
        #expect(ISBN.normalized("9780306406158") == nil)
        #expect(ISBN.normalized("080442957X") == "9780804429573")
    }

    // MARK: hostile archives

    func archive(_ entries: [(String, Data)], compress: Bool = true) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString).epub")
        let archive = try Archive(url: url, accessMode: .create)
        for (path, data) in entries {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: compress ? .deflate : .none) {
                position,
                size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return url
    }

    static let container = Data(
        """
        <?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
        <rootfiles><rootfile full-path="OPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>
        """.utf8
    )

    func opf(title: String = "Hostile", extra: String = "") -> Data {
        Data(
            """
            <?xml version="1.0"?>\(extra)<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
            <dc:title>\(title)</dc:title></metadata><manifest/><spine/></package>
            """.utf8
        )
    }

    func refusal(_ url: URL) -> EPUBError? {
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            var parser = try EPUBParser(url: url)
            _ = try parser.parse()
            return nil
        } catch let error as EPUBError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test func aZipBombIsRefusedWithoutInflatingIt() throws {
        let zeros = Data(count: 64 << 20)
        let error = refusal(
            try archive([
                ("mimetype", Data("application/epub+zip".utf8)), ("META-INF/container.xml", Self.container), ("OPS/book.opf", opf()),
                ("OPS/zeros.bin", zeros),
            ])
        )
        #expect(error?.slug == "zip-bomb")
    }

    /// An entry that declares 1 KB but inflates to 8 MB is read no further than its declared size, whoever asks.
    @Test func anEntryThatLiesAboutItsSizeIsReadNoFurtherThanItsDeclaredSize() throws {
        let url = try archive([("mimetype", Data("application/epub+zip".utf8)), ("OPS/padding.css", Data(repeating: 0x20, count: 8 << 20))])
        defer { try? FileManager.default.removeItem(at: url) }
        var bytes = try Data(contentsOf: url)
        // Patch the uncompressed size (little-endian) of the entry in its local header (offset 22) and in the central
        // directory (offset 24) to 1,024 bytes.
        func patch(signature: [UInt8], offset: Int) {
            var index = bytes.startIndex
            while let range = bytes.range(of: Data(signature), in: index..<bytes.endIndex) {
                let nameLength =
                    Int(bytes[range.lowerBound + (signature[2] == 1 ? 28 : 26)]) | Int(bytes[range.lowerBound + (signature[2] == 1 ? 29 : 27)]) << 8
                let nameStart = range.lowerBound + (signature[2] == 1 ? 46 : 30)
                if String(decoding: bytes[nameStart..<nameStart + nameLength], as: UTF8.self) == "OPS/padding.css" {
                    bytes.replaceSubrange(range.lowerBound + offset..<range.lowerBound + offset + 4, with: [0x00, 0x04, 0x00, 0x00])
                }
                index = range.upperBound
            }
        }
        patch(signature: [0x50, 0x4B, 0x03, 0x04], offset: 22)
        patch(signature: [0x50, 0x4B, 0x01, 0x02], offset: 24)
        try bytes.write(to: url)
        let safe = try SafeArchive(url: url)
        #expect(safe.entries["OPS/padding.css"]?.uncompressedSize == 1_024)
        #expect(throws: EPUBError.self) { _ = try safe.read("OPS/padding.css") }
    }

    /// `count` bytes that do not compress (xorshift).
    static func noise(_ count: Int) -> Data {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var data = Data(count: count)
        for index in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            data[index] = UInt8(truncatingIfNeeded: state)
        }
        return data
    }

    /// Every chunk of `path` in `range`, and the largest chunk.
    func streamed(_ archive: SafeArchive, _ path: String, _ range: Range<Int>) async throws -> (Data, Int) {
        let chunks = try #require(archive.chunks(of: path, range: range, obfuscation: nil))
        var data = Data()
        var largest = 0
        for try await chunk in chunks.stream {
            data.append(contentsOf: chunk.readableBytesView)
            largest = max(largest, chunk.readableBytes)
            chunks.taken()
        }
        return (data, largest)
    }

    @Test func aLargeEntryIsInflatedInSmallChunksAndRangesAreExact() async throws {
        let content = Self.noise(3 << 20)
        let url = try archive([("mimetype", Data("application/epub+zip".utf8)), ("OPS/audio.mp3", content)])
        defer { try? FileManager.default.removeItem(at: url) }
        let safe = try SafeArchive(url: url)
        let (whole, largest) = try await streamed(safe, "OPS/audio.mp3", 0..<content.count)
        #expect(whole == content)
        #expect(largest <= EntryChunks.chunkSize)
        #expect(try await streamed(safe, "OPS/audio.mp3", 1_000_003..<1_500_007).0 == content[1_000_003..<1_500_007])
        #expect(try await streamed(safe, "OPS/audio.mp3", (content.count - 10)..<content.count).0 == content.suffix(10))
        // A reader that goes away stops the inflating: the thread, four chunks ahead and waiting, is released.
        let abandoned = try #require(safe.chunks(of: "OPS/audio.mp3", range: 0..<content.count, obfuscation: nil))
        var iterator = abandoned.stream.makeAsyncIterator()
        _ = try await iterator.next()
        abandoned.stop()
        let deadline = ContinuousClock.now + .seconds(10)
        while !abandoned.inflatingEnded, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(abandoned.inflatingEnded)
    }

    @Test func centralDirectoriesAreKeptWithinTheirBound() async throws {
        let first = try archive([("mimetype", Data("application/epub+zip".utf8)), ("a.css", Data("a".utf8))])
        let second = try archive([("mimetype", Data("application/epub+zip".utf8)), ("b.css", Data("b".utf8))])
        defer { for url in [first, second] { try? FileManager.default.removeItem(at: url) } }
        let directories = ArchiveDirectories(maxEntries: 3)
        _ = try await directories.directory(sha256: "first", at: first)
        #expect(directories.count == 1)
        try FileManager.default.removeItem(at: first)
        let kept = try await directories.directory(sha256: "first", at: first)
        #expect(kept.entries.keys.contains("a.css"), "read from the kept directory: the file is gone")
        _ = try await directories.directory(sha256: "second", at: second)
        #expect(directories.count == 1, "two entries each: the older directory made room")
        let newer = try await directories.directory(sha256: "second", at: second)
        #expect(newer.entries.keys.contains("b.css"))
    }

    @Test func aStreamedEntryThatLiesAboutItsSizeFails() async throws {
        let url = try archive([("mimetype", Data("application/epub+zip".utf8)), ("OPS/padding.css", Self.noise(8 << 20))])
        defer { try? FileManager.default.removeItem(at: url) }
        var bytes = try Data(contentsOf: url)
        // Declared at 2 MiB (little-endian 0x00200000) in the local header (offset 22) and the central directory (24).
        for (signature, offset) in [([UInt8]([0x50, 0x4B, 0x03, 0x04]), 22), ([0x50, 0x4B, 0x01, 0x02], 24)] {
            var index = bytes.startIndex
            while let range = bytes.range(of: Data(signature), in: index..<bytes.endIndex) {
                let nameStart = range.lowerBound + (signature[2] == 1 ? 46 : 30)
                if bytes[nameStart..<min(nameStart + 15, bytes.endIndex)] == Data("OPS/padding.css".utf8) {
                    bytes.replaceSubrange(range.lowerBound + offset..<range.lowerBound + offset + 4, with: [0x00, 0x00, 0x20, 0x00])
                }
                index = range.upperBound
            }
        }
        try bytes.write(to: url)
        let safe = try SafeArchive(url: url)
        #expect(safe.entries["OPS/padding.css"]?.uncompressedSize == 2 << 20)
        await #expect(throws: EPUBError.self) { _ = try await streamed(safe, "OPS/padding.css", 0..<(2 << 20)) }
    }

    @Test func pathTraversalIsRefused() throws {
        #expect(refusal(try archive([("META-INF/container.xml", Self.container), ("../../etc/passwd", Data("x".utf8))]))?.slug == "unsafe-path")
        #expect(EPUBParser.resolve("../../../etc/passwd", against: "OPS/") == nil)
        #expect(EPUBParser.resolve("../images/a.jpg", against: "OPS/text/") == "OPS/images/a.jpg")
    }

    @Test func entityExpansionIsRefused() throws {
        let laughs = #"<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>"#
        let error = refusal(try archive([("META-INF/container.xml", Self.container), ("OPS/book.opf", opf(title: "&lol2;", extra: laughs))]))
        #expect(error?.slug == "hostile-xml")
    }

    @Test func missingPiecesAreNamed() throws {
        #expect(refusal(try archive([("mimetype", Data("application/epub+zip".utf8))]))?.slug == "missing-container")
        #expect(refusal(try archive([("META-INF/container.xml", Self.container)]))?.slug == "missing-package")
        #expect(
            refusal(try archive([("META-INF/container.xml", Self.container), ("OPS/book.opf", Data("<package><metadata>".utf8))]))?.slug
                == "unreadable-package"
        )
        #expect(refusal(try archive([("META-INF/container.xml", Self.container), ("OPS/book.opf", opf(title: ""))]))?.slug == "no-title")
    }

    @Test func truncatedAndBitFlippedFilesNeverCrashTheParser() async throws {
        let source = try Data(contentsOf: try #require(await CorpusBook.valid(1).first))
        var generator = SystemRandomNumberGenerator()
        for round in 0..<60 {
            var data = round < 20 ? source.prefix(Int.random(in: 0..<source.count, using: &generator)) : source
            if round >= 20 {
                for _ in 0..<8 {
                    let index = Int.random(in: 0..<data.count, using: &generator)
                    data[index] ^= UInt8.random(in: 1...255, using: &generator)
                }
            }
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-\(UUID().uuidString).epub")
            try data.write(to: url)
            do {
                var parser = try EPUBParser(url: url)
                _ = try parser.parse()
            } catch {
                #expect(error is EPUBError || error is XMLNode.Malformed, "round \(round): \(error)")
            }
            try? FileManager.default.removeItem(at: url)
        }
    }
}
