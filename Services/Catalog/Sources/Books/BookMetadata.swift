import Foundation
import Shared

/// What a book says about itself: its package's metadata (an EPUB's), a PDF's information or an audiobook's tags. Ingest
/// reads it (`ParsedBook`), the catalog stores it and every place that shows a book shows it (`BookEntry`, `BookRecord`).
struct BookMetadata: Codable, Sendable, Equatable {
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
    var accessibility: Accessibility?
    var format: BookFormat
    /// An audiobook's length in seconds.
    var duration: Double?

    /// The contributors in the author's role.
    var authors: [Contributor] { contributors.filter { $0.role == "aut" } }
    /// Minutes at 250 words a minute.
    var readingMinutes: Int { max(1, Int((Double(wordCount) / 250).rounded())) }
}
