import Foundation
import Shared

/// Everything ingest extracts from a book's file (an EPUB's package, a PDF's information, an audiobook's tags).
struct ParsedBook: Sendable {
    var title: String
    var subtitle: String?
    var contributors: [Contributor]
    var languages: [String]
    var publisher: String?
    var published: String?
    var description: String?
    var subjects: [String]
    var genres: [String]
    var isbn: String?
    var identifiers: [String]
    var series: String?
    var seriesPosition: Double?
    var pageProgression: String?
    var fixedLayout: Bool
    var wordCount: Int
    var readingOrder: [PackageResource]
    var resources: [PackageResource]
    var toc: [TOCEntry]
    var pageList: [TOCEntry]
    var landmarks: [TOCEntry]
    var cover: (data: Data, type: String)?
    var accessibility: Accessibility?
    /// KOReader's name for the file (`KOReaderDigest`), by which its sync plugin names the book.
    var koreaderDigest: String
    var warnings: [String]
    var format: BookFormat = .epub
    /// An audiobook's length in seconds.
    var duration: Double? = nil
    /// A PDF's pages (an EPUB's come from its page list).
    var pages: Int? = nil
    /// The EPUB's `schema:typicalAgeRange` (`8-12`).
    var ageRange: String? = nil

    /// Raised whenever the reader derives more from an EPUB (1: accessibility metadata and the page count; 2: the series
    /// is the collection typed "series", not a boxed set; 3: KOReader's digest of the file), so that books stored by an
    /// older reader can be found and read again (`catalog reread-metadata`).
    static let readerVersion = 3

    var authors: [Contributor] { contributors.filter { $0.role == "aut" } }
    /// Pages of the print edition, as the page list counts them (nil without a page list).
    var pageCount: Int? { pages ?? (pageList.isEmpty ? nil : pageList.reduce(0) { $0 + $1.count }) }
    /// Who the book is for, as its metadata states it (nil: not stated).
    var audience: BookAudience? { BookAudience.stated(ageRange: ageRange, subjects: subjects) }
    /// Minutes at 250 words a minute.
    var readingMinutes: Int { max(1, Int((Double(wordCount) / 250).rounded())) }
}

extension ParsedBook {
    /// A PDF's or an audiobook's metadata: what their tools give (`PDFReader`, `AudiobookPackager`); the EPUB's own
    /// parts (page list, landmarks, series, layout, word count, accessibility) empty.
    init(
        format: BookFormat,
        title: String,
        contributors: [Contributor],
        languages: [String] = [],
        publisher: String? = nil,
        published: String?,
        description: String?,
        subjects: [String],
        readingOrder: [PackageResource],
        toc: [TOCEntry],
        cover: (data: Data, type: String)? = nil,
        koreaderDigest: String = "",
        warnings: [String] = []
    ) {
        self.init(
            title: String(title.prefix(500)),
            subtitle: nil,
            contributors: contributors,
            languages: languages,
            publisher: publisher,
            published: published,
            description: description,
            subjects: subjects,
            genres: [],
            isbn: nil,
            identifiers: [],
            series: nil,
            seriesPosition: nil,
            pageProgression: nil,
            fixedLayout: false,
            wordCount: 0,
            readingOrder: readingOrder,
            resources: readingOrder,
            toc: toc,
            pageList: [],
            landmarks: [],
            cover: cover,
            accessibility: nil,
            koreaderDigest: koreaderDigest,
            warnings: warnings,
            format: format
        )
    }
}
