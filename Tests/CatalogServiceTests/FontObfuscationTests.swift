import Foundation
import TestSupport
import Testing

@testable import CatalogService

/// Obfuscated fonts in the corpus are recognised at ingest and come out as fonts again.
@Suite struct FontObfuscationTests {
    func parse(_ fileName: String) throws -> ParsedBook {
        var parser = try EPUBParser(url: try #require(CorpusBook.all.first { $0.file.lastPathComponent == fileName }).file)
        return try parser.parse()
    }

    @Test(.needsCorpus) func idpfObfuscatedFontsAreUndoneWithTheUniqueIdentifiersKey() throws {
        let wasteland = try parse("idpf-wasteland-woff-obf.epub")
        let obfuscated = wasteland.resources.filter { $0.obfuscation != nil }
        #expect(
            obfuscated.map(\.href).sorted() == [
                "EPUB/OldStandard-Bold.obf.woff", "EPUB/OldStandard-Italic.obf.woff", "EPUB/OldStandard-Regular.obf.woff",
            ]
        )
        for resource in obfuscated {
            let archive = try SafeArchive(
                url: try #require(CorpusBook.all.first { $0.file.lastPathComponent == "idpf-wasteland-woff-obf.epub" }).file
            )
            let stored = try #require(try archive.read(resource.href))
            #expect(stored.prefix(4) != Data("wOFF".utf8))
            #expect(resource.obfuscation!.apply(to: stored).prefix(4) == Data("wOFF".utf8), "\(resource.href)")
        }
        let lobster = try #require(try parse("w3c-ocf-font_obfuscation.epub").resources.first { $0.href == "EPUB/fonts/Lobster.ttf" })
        let archive = try SafeArchive(url: try #require(CorpusBook.all.first { $0.file.lastPathComponent == "w3c-ocf-font_obfuscation.epub" }).file)
        let font = lobster.obfuscation!.apply(to: try #require(try archive.read(lobster.href)))
        #expect([Data([0, 1, 0, 0]), Data("OTTO".utf8), Data("true".utf8)].contains(font.prefix(4)), "a TrueType/OpenType header")
    }

    /// The IDPF scheme on a generated book (`make_epubs.py --obfuscated-fonts`), so that it runs without the corpus too.
    @Test func aGeneratedIDPFObfuscatedFontIsUndone() async throws {
        let file = try #require(await TestTools.generatedBooks(count: 1, seed: 5, options: ["--obfuscated-fonts"]).first)
        var parser = try EPUBParser(url: file)
        let book = try parser.parse()
        let font = try #require(book.resources.first { $0.obfuscation != nil })
        #expect(font.href == "OEBPS/fonts/font.woff")
        let stored = try #require(try SafeArchive(url: file).read(font.href))
        #expect(stored.prefix(4) != Data("wOFF".utf8), "stored obfuscated")
        #expect(font.obfuscation!.apply(to: stored).prefix(4) == Data("wOFF".utf8))
    }

    @Test(.needsCorpus) func realEncryptionIsAWarningNotAFont() throws {
        let book = try parse("epubcheck-epub3-ocf-encryption-unknown-valid.epub")
        #expect(book.resources.allSatisfy { $0.obfuscation == nil })
        #expect(book.warnings.contains { $0.contains("EPUB/content_001.xhtml is encrypted") })
    }

    @Test func adobesSchemeUsesTheUUIDsBytesOverTheFirstKilobyte() throws {
        let adobe = try #require(
            FontObfuscation(algorithm: FontObfuscation.adobeAlgorithm, uniqueIdentifier: "urn:uuid:00112233-4455-6677-8899-AABBCCDDEEFF")
        )
        #expect(adobe.key == [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF])
        let font = Data((0..<2000).map { UInt8($0 % 251) })
        let obfuscated = adobe.apply(to: font)
        #expect(obfuscated.prefix(1024) != font.prefix(1024) && obfuscated.dropFirst(1024) == font.dropFirst(1024))
        #expect(adobe.apply(to: obfuscated) == font)
        #expect(FontObfuscation(algorithm: FontObfuscation.adobeAlgorithm, uniqueIdentifier: "isbn:9780000000000") == nil)
        #expect(FontObfuscation(algorithm: "http://www.w3.org/2001/04/xmlenc#aes128-cbc", uniqueIdentifier: "x") == nil)
    }

    @Test func aFontUndonePieceByPieceIsTheFontUndoneWhole() throws {
        let obfuscation = try #require(FontObfuscation(algorithm: FontObfuscation.idpfAlgorithm, uniqueIdentifier: "urn:uuid:1234"))
        let font = Data((0..<5_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        var pieces = Data()
        for start in stride(from: 0, to: font.count, by: 333) {
            var piece = font.subdata(in: start..<min(start + 333, font.count))
            obfuscation.apply(to: &piece, at: start)
            pieces.append(piece)
        }
        #expect(pieces == obfuscation.apply(to: font))
    }
}
