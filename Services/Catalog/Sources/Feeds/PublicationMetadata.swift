import Foundation
import Shared

/// Metadata that OPDS 2.0 publications and Readium manifests share, written the same way in both.
enum PublicationMetadata {
    static let manifestType = MediaType.webPublication
    /// Our own metadata key for the reading-time estimate (minutes at 250 words a minute). Readium's `duration` is
    /// the length of audio in seconds, so an ebook's estimate does not belong there.
    static let readingMinutesKey = "urn:x-bookmobile:readingMinutes"

    /// `numberOfPages` from the EPUB's page list (the print edition's pages) or the PDF's pages, an audiobook's
    /// `duration` in seconds, and the reading-time estimate.
    static func addExtents(of book: BookEntry, to metadata: inout [String: Any]) {
        if let pages = book.pageCount, pages > 0 { metadata["numberOfPages"] = pages }
        if let duration = book.duration { metadata["duration"] = duration }
        if book.wordCount > 0 { metadata[readingMinutesKey] = book.readingMinutes }
    }

    /// The Readium accessibility object, or nil when the book declares nothing.
    static func accessibility(_ book: BookEntry) -> [String: Any]? {
        guard let accessibility = book.accessibility, !accessibility.isEmpty else { return nil }
        var object: [String: Any] = [:]
        if !accessibility.conformsTo.isEmpty { object["conformsTo"] = accessibility.conformsTo }
        if let certification = accessibility.certification {
            var certificate: [String: Any] = [:]
            if let by = certification.certifiedBy { certificate["certifiedBy"] = by }
            if let credential = certification.credential { certificate["credential"] = credential }
            if let report = certification.report { certificate["report"] = report }
            object["certification"] = certificate
        }
        if let summary = accessibility.summary { object["summary"] = summary }
        if !accessibility.accessMode.isEmpty { object["accessMode"] = accessibility.accessMode }
        if !accessibility.accessModeSufficient.isEmpty { object["accessModeSufficient"] = accessibility.accessModeSufficient }
        if !accessibility.feature.isEmpty { object["feature"] = accessibility.feature }
        if !accessibility.hazard.isEmpty { object["hazard"] = accessibility.hazard }
        return object
    }
}
