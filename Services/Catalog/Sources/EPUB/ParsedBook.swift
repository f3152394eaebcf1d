import Foundation
import Shared

/// Everything ingest extracts from a book's file (an EPUB's package, a PDF's information, an audiobook's tags): the
/// metadata and navigation the catalog stores, and what ingest itself needs. The metadata's and navigation's fields
/// read as its own (`parsed.title`, `parsed.toc`).
@dynamicMemberLookup
struct ParsedBook: Sendable {
    var metadata: BookMetadata
    var navigation: BookNavigation
    var cover: (data: Data, type: String)?
    /// KOReader's name for the file (`KOReaderDigest`), by which its sync plugin names the book.
    var koreaderDigest: String
    var warnings: [String]
    /// A PDF's pages (an EPUB's come from its page list).
    var pages: Int? = nil
    /// The EPUB's `schema:typicalAgeRange` (`8-12`).
    var ageRange: String? = nil

    subscript<Value>(dynamicMember field: WritableKeyPath<BookMetadata, Value>) -> Value {
        get { metadata[keyPath: field] }
        set { metadata[keyPath: field] = newValue }
    }

    subscript<Value>(dynamicMember field: WritableKeyPath<BookNavigation, Value>) -> Value {
        get { navigation[keyPath: field] }
        set { navigation[keyPath: field] = newValue }
    }

    /// Raised whenever the reader derives more from an EPUB (1: accessibility metadata and the page count; 2: the series
    /// is the collection typed "series", not a boxed set; 3: KOReader's digest of the file), so that books stored by an
    /// older reader can be found and read again (`catalog reread-metadata`).
    static let readerVersion = 3

    /// Pages of the print edition, as the page list counts them (nil without a page list).
    var pageCount: Int? { pages ?? (navigation.pageList.isEmpty ? nil : navigation.pageList.reduce(0) { $0 + $1.count }) }
    /// Who the book is for, as its metadata states it (nil: not stated).
    var audience: BookAudience? { BookAudience.stated(ageRange: ageRange, subjects: metadata.subjects) }
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
            metadata: BookMetadata(
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
                accessibility: nil,
                format: format
            ),
            navigation: BookNavigation(readingOrder: readingOrder, resources: readingOrder, toc: toc, pageList: [], landmarks: []),
            cover: cover,
            koreaderDigest: koreaderDigest,
            warnings: warnings
        )
    }
}
