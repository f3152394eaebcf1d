import Foundation
import TestSupport
import Testing

@testable import CatalogService

/// Covers drawn for books that have none: a JPEG of the cover's size, the same for the same book, escaped text.
@Suite struct GeneratedCoverTests {
    @Test func aCoverIsAJPEGOfItsSizeWithAThumbnail() throws {
        let cover = try GeneratedCover.make(title: "The Voyage of the Beagle", authors: ["Charles Darwin"])
        #expect(RasterImage.type(of: cover) == "image/jpeg")
        let size = try #require(ImageSize.of(cover))
        #expect(size.width == GeneratedCover.width && size.height == GeneratedCover.height)
        let thumbnail = try #require(try CoverThumbnail.make(from: cover))
        #expect(ImageSize.of(thumbnail.data)?.height == CoverThumbnail.maxHeight)
        if let folder = ProcessInfo.processInfo.environment["GENERATED_COVER_DIR"] {
            try cover.write(to: URL(fileURLWithPath: folder).appendingPathComponent("generated-cover.jpg"))
        }
    }

    @Test func theSameBookAlwaysGetsTheSameCoverAndAnotherBookAnotherColour() throws {
        let first = try GeneratedCover.make(title: "Middlemarch", authors: ["George Eliot"])
        #expect(try GeneratedCover.make(title: "Middlemarch", authors: ["George Eliot"]) == first)
        let colours = Set(
            ["Emma", "Persuasion", "Mansfield Park", "Sense and Sensibility"].map { "\(GeneratedCover.colour(title: $0, authors: ["Jane Austen"]))" }
        )
        #expect(colours.count == 4)
    }

    @Test func markupInATitleIsText() throws {
        // Unescaped, `<b` or `&` would make Pango refuse the text (and the book would have no cover).
        let cover = try GeneratedCover.make(title: "Fish & <Chips> <b>bold", authors: ["A <script>", "B & C"])
        #expect(RasterImage.type(of: cover) == "image/jpeg")
        let long = try GeneratedCover.make(title: String(repeating: "Antidisestablishmentarianism ", count: 40), authors: [])
        #expect(ImageSize.of(long)?.height == GeneratedCover.height, "a very long title is cut, not a taller cover")
    }
}
