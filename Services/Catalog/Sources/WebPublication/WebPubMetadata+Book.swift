import Foundation
import Shared

/// What OPDS 2.0 publications and Readium manifests show of every book, written the same way in both.
extension WebPubMetadata {
    /// The book's title, subtitle, languages, publisher, description and accessibility, under its type and identifier.
    init(_ book: BookMetadata, type: String, identifier: String, modified: Date) {
        self.init(type: type, title: book.title, subtitle: book.subtitle, identifier: identifier, modified: modified)
        publisher = book.publisher
        description = book.description
        if !book.languages.isEmpty { language = book.languages.count == 1 ? .one(book.languages[0]) : .many(book.languages) }
        accessibility = book.accessibility
    }

    /// `numberOfPages` from the EPUB's page list (the print edition's pages) or the PDF's pages, an audiobook's
    /// `duration` in seconds, and the reading-time estimate.
    mutating func addExtents(of book: BookEntry) {
        if let pages = book.pageCount, pages > 0 { numberOfPages = pages }
        duration = book.duration
        if book.wordCount > 0 { readingMinutes = book.readingMinutes }
    }
}
