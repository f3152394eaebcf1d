import Foundation
import TestSupport
import Testing

@testable import CatalogService

/// Cover thumbnails made with libvips: scaled down to 200 px high, format by transparency, hostile images refused.
@Suite struct CoverThumbnailTests {
    /// A 300×400 semi-transparent RGBA PNG.
    static let transparentPNG = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAASwAAAGQCAYAAAAUdV17AAAD7UlEQVR42u3UMQ0AAAgEMZS8TiQiCxUMJB1q4IarSRrggxIBMCwAwwIMC8CwAAwLMCwAwwIwLMCwAAwLwLAAwwIwLADDAgwLwLAADAswLADDAjAswLAADAvAsADDAjAsAMMCDAvAsADDEgEwLADDAgwLwLAADAswLADDAjAswLAADAvAsADDAjAsAMMCDAvAsAAMCzAsAMMCMCzAsAAMC8CwAMMCMCwAwwIMC8CwAMMSATAsAMMCDAvAsAAMCzAsAMMCMCzAsAAMC8CwAMMCMCwAwwIMC8CwAAwLMCwAwwIwLMCwAAwLwLAAwwIwLADDAgwLwLAAwxICMCwAwwIMC8CwAAwLMCwAwwIwLMCwAAwLwLAAwwIwLADDAgwLwLAADAswLADDAjAswLAADAvAsADDAjAsAMMCDAvAsADDAjAsAMMCDAvAsAAMCzAsAMMCMCzAsAAMC8CwAMMCMCwAwwIMC8CwAAwLMCwAwwIwLMCwAAwLwLAAwwIwLADDAgwLwLAAwwIwLADDAgwLwLAADAswLADDAjAswLAADAvAsADDAjAsAMMCDAvAsAAMCzAsAMMCMCzAsAAMC8CwAMMCMCwAwwIMC8CwAMMCMCwAwwIMC8CwAAwLMCwAwwIwLMCwAAwLwLAAwwIwLADDAgwLwLAADAswLADDAjAswLAADAvAsADDAjAsAMMCDAvAsADDAjAsAMMCDAvAsAAMCzAsAMMCMCzAsAAMC8CwAMMCMCwAwwIMC8CwAAwLMCwAwwIwLMCwAAwLwLAAwwIwLADDAgwLwLAAwwIwLADDAgwLwLAADAswLADDAjAswLAADAvAsADDAjAsAMMCDAvAsAAMCzAsAMMCMCzAsAAMC8CwAMMCMCzAsEQADAvAsADDAjAsAMMCDAvAsAAMCzAsAMMCMCzAsAAMC8CwAMMCMCwAwwIMC8CwAAwLMCwAwwIwLMCwAAwLwLAAwwIwLMCwRAAMC8CwAMMCMCwAwwIMC8CwAAwLMCwAwwIwLMCwAAwLwLAAwwIwLADDAgwLwLAADAswLADDAjAswLAADAvAsADDAjAswLBEAAwLwLAAwwIwLADDAgwLwLAADAswLADDAjAswLAADAvAsADDAjAsAMMCDAvAsAAMCzAsAMMCMCzAsAAMC8CwAMMCMCzAsIQADAvAsADDAjAsAMMCDAvAsAAMCzAsAMMCMCzAsAAMC8CwAMMCMCwAwwIMC8CwAAwLMCwAwwIwLMCwAAwLwLAAwwIwLMCwAAwLwLAAwwIwLADDAgwLwLAADAswLADDAjAswLAADAvAsADDAjAsAMMCDAvAsAAMCzAsAMMCMCzAsAAuLdok9bqMzs3SAAAAAElFTkSuQmCC"
    )!
    /// A PNG header claiming 60,000 × 60,000 pixels (3.6 gigapixels) over a few bytes of data.
    static let pixelBomb = Data(
        base64Encoded: "iVBORw0KGgoAAAANSUhEUgAA6mAAAOpgCAIAAAAPsOIVAAAAEUlEQVR4nGNgGAWjYBQMdwAAA+gAAbOm00YAAAAASUVORK5CYII="
    )!

    @Test func aTransparentCoverBecomesAPNGOfAtMost200PixelsHigh() throws {
        let thumbnail = try #require(try CoverThumbnail.make(from: Self.transparentPNG))
        #expect(thumbnail.type == "image/png")
        let size = try #require(ImageSize.of(thumbnail.data))
        #expect(size.height == 200)
        #expect(size.width == 150, "the aspect ratio is kept")
    }

    @Test(.needsCorpus) func anOpaqueCoverBecomesAJPEG() throws {
        let book = try #require(CorpusBook.all.first { $0.file.lastPathComponent == "bmaupin-basic-v3plus2.epub" })
        var parser = try EPUBParser(url: book.file)
        let cover = try #require(try parser.parse().cover)
        let original = try #require(ImageSize.of(cover.data))
        let thumbnail = try #require(try CoverThumbnail.make(from: cover.data))
        #expect(thumbnail.type == "image/jpeg")
        let size = try #require(ImageSize.of(thumbnail.data))
        #expect(original.height > 200)
        #expect(size.height == 200)
        #expect(abs(Double(size.width) / 200 - Double(original.width) / Double(original.height)) < 0.02)
        #expect(thumbnail.data.count < cover.data.count)
    }

    /// The same on a generated book (an opaque 300x450 cover of noise), so that it runs without the corpus too.
    @Test func aGeneratedOpaqueCoverBecomesASmallerJPEG() async throws {
        let file = try #require(await TestTools.generatedBooks(count: 1, seed: 5, options: ["--large-covers"]).first)
        var parser = try EPUBParser(url: file)
        let cover = try #require(try parser.parse().cover)
        let thumbnail = try #require(try CoverThumbnail.make(from: cover.data))
        #expect(thumbnail.type == "image/jpeg")
        let size = try #require(ImageSize.of(thumbnail.data))
        #expect(size.height == 200 && size.width == 133)
        #expect(thumbnail.data.count < cover.data.count)
    }

    @Test func aCoverNoHigherThan200PixelsIsItsOwnThumbnail() throws {
        let thumbnail = try #require(try CoverThumbnail.make(from: Self.transparentPNG))
        #expect(try CoverThumbnail.make(from: thumbnail.data) == nil)
        #expect(try CoverThumbnail.make(from: Self.onePixelPNG) == nil)
    }

    @Test func hostileImagesAreRefusedWithAReason() {
        for (name, data) in [
            ("bomb", Self.pixelBomb), ("text", Data("not an image".utf8)), ("empty", Data()),
            ("truncated", Self.transparentPNG.prefix(200)), ("svg", Data("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8)),
        ] {
            do {
                _ = try CoverThumbnail.make(from: data)
                Issue.record("\(name) made a thumbnail")
            } catch {
                #expect(!error.description.isEmpty, "\(name)")
            }
        }
        #expect(throws: CoverThumbnail.Failure.self) { try CoverThumbnail.make(from: Self.pixelBomb) }
        do { _ = try CoverThumbnail.make(from: Self.pixelBomb) } catch { #expect(error.description.contains("larger than the limit")) }
    }

    /// A 1×1 opaque grey PNG.
    static let onePixelPNG = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNoAAAAggCBd81ytgAAAABJRU5ErkJggg==")!
}

/// Width and height from a PNG's IHDR or a JPEG's SOF marker, without decoding.
enum ImageSize {
    static func of(_ data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data)
        func be16(_ i: Int) -> Int { Int(bytes[i]) << 8 | Int(bytes[i + 1]) }
        func be32(_ i: Int) -> Int { be16(i) << 16 | be16(i + 2) }
        if bytes.count > 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return (be32(16), be32(20)) }
        guard bytes.starts(with: [0xFF, 0xD8]) else { return nil }
        var i = 2
        while i + 9 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) { return (be16(i + 7), be16(i + 5)) }
            i += 2 + be16(i + 2)
        }
        return nil
    }
}
